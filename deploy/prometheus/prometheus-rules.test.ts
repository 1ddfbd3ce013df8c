import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALERT_RULES, DEFAULT_ALERT_THRESHOLDS as T } from '@/core/alerts';
import type { Database } from '@/db/client';
import { ALERT_RULE_DEFINITIONS } from '@/lib/alerts/rules';
import { seedAlertInputs } from '@/server/resources/alert-figures.testkit';
import { metricsExposition } from '@/server/resources/prometheus';
import { freshDatabase } from '@/test/database';
import { sampleCluster, sampleNode, storeSamples } from '@/workers/metrics/sampler';

// The Prometheus rules file Crucible ships (deploy/prometheus/alerts.yml): valid, unit-tested
// with promtool, the same rules as the built-in evaluator's, and written only against metric
// names the real /api/metrics exposition has.

const dir = import.meta.dirname;
const RULES = path.join(dir, 'alerts.yml');
const TESTS = path.join(dir, 'alerts.test.yml');
const ALERTMANAGER = path.join(dir, 'alertmanager.yml');

const has = (bin: string) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0;
// promtool is required (scripts/system-deps.sh installs it, as CI does); amtool is optional
const PROMTOOL_MISSING =
  "promtool is not installed: it comes with Debian's `prometheus` package (apt-get install -y --no-install-recommends prometheus; bash scripts/system-deps.sh does it)";
const amtool = has('amtool');

function run(bin: string, args: string[]) {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

type Rule = { alert: string; expr: string; for: string; severity: string };

/**
 * The rules of alerts.yml, read line by line (the file's own layout: `- alert:`, then a one-line
 * `expr:`, `for:` and `severity:`); promtool checks the YAML itself.
 */
function readRules(text: string): Rule[] {
  const rules: Rule[] = [];
  let cur: Partial<Rule> | null = null;
  for (const line of text.split('\n')) {
    const alert = /^\s*- alert:\s*(\S+)\s*$/.exec(line);
    if (alert) rules.push((cur = { alert: alert[1]! }) as Rule);
    const field = /^\s*(expr|for|severity):\s*(.*?)\s*$/.exec(line);
    if (field && cur) {
      const [, key, value] = field as unknown as [string, 'expr' | 'for' | 'severity', string];
      if (key === 'expr' && /^[|>]/.test(value)) throw new Error(`${cur.alert}: keep expr on one line (this test reads it line by line)`);
      cur[key] = value;
    }
  }
  for (const r of rules) for (const k of ['expr', 'for', 'severity'] as const) if (!r[k]) throw new Error(`${r.alert}: no ${k}`);
  return rules;
}

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression selects: identifiers that are not functions, keywords, label names or durations. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // strings
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ''); // label lists
  const names = new Set<string>();
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = bare.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

const seconds = (d: string) => {
  const m = /^(\d+)([smh])$/.exec(d);
  if (!m) throw new Error(`unexpected duration ${d}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
};

const rules = readRules(fs.readFileSync(RULES, 'utf8'));

describe('deploy/prometheus/alerts.yml', () => {
  it('passes `promtool check rules` and `promtool test rules`', () => {
    if (!has('promtool')) throw new Error(PROMTOOL_MISSING);
    const check = run('promtool', ['check', 'rules', '--lint=all', '--lint-fatal', RULES]);
    expect(check.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(check.status, check.output).toBe(0);
    const test = run('promtool', ['test', 'rules', TESTS]);
    expect(test.output).toContain('SUCCESS');
    expect(test.status, test.output).toBe(0);
  });

  it("has the built-in rules, each with the built-in's severity, `for:` and default thresholds", () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([...ALERT_RULES].sort());
    for (const r of rules) {
      const builtIn = ALERT_RULE_DEFINITIONS.find((d) => d.name === r.alert)!;
      expect({ alert: r.alert, severity: r.severity, forS: seconds(r.for) }).toEqual({ alert: r.alert, severity: builtIn.severity, forS: builtIn.forS });
    }
    const expr = Object.fromEntries(rules.map((r) => [r.alert, r.expr]));
    const thresholds: Partial<Record<(typeof ALERT_RULES)[number], string[]>> = {
      RunRewardCollapse: [`> ${T.rewardDrop}`],
      RunRewardJump: [`> ${T.rewardJump}`],
      RunKlHigh: [`> ${T.klMax}`],
      RunEntropyCollapse: [`< ${T.entropyMin}`],
      RunGradNormHigh: [`> ${T.gradNormMax}`],
      RunClipFractionHigh: [`> ${T.clipFractionMax}`],
      RunInfraFailures: [`> ${T.infraFailedRateMax}`],
      RunReviewDisagreement: [`< ${T.kappaMin}`, `>= ${T.kappaMinPairs}`],
      SandboxSecurityDenials: [`> ${T.securityDenialsMax}`],
      QueueWaitHigh: [`> ${T.queueWaitS}`],
      DiskPressure: [`> ${T.diskUsedMax}`],
      MemoryPressure: [`> ${T.memoryUsedMax}`],
    };
    for (const [alert, parts] of Object.entries(thresholds)) for (const p of parts) expect(expr[alert], alert).toContain(p);
  });

  it('is unit-tested for every rule: not firing before its `for:`, firing after', () => {
    const text = fs.readFileSync(TESTS, 'utf8');
    const checks = [...text.matchAll(/alertname: (\w+)\n\s*exp_alerts:( \[\])?/g)].map((m) => ({ alert: m[1]!, firing: !m[2] }));
    for (const r of rules) {
      expect(
        checks.some((c) => c.alert === r.alert && !c.firing),
        `${r.alert}: a check that it is not firing yet`,
      ).toBe(true);
      expect(
        checks.some((c) => c.alert === r.alert && c.firing),
        `${r.alert}: a check that it fires`,
      ).toBe(true);
    }
  });

  it.skipIf(!amtool)(`ships an Alertmanager config that passes \`amtool check-config\`${amtool ? '' : ' (skipped: no amtool)'}`, () => {
    const check = run('amtool', ['check-config', ALERTMANAGER]);
    expect(check.status, check.output).toBe(0);
    expect(check.output).toContain('2 inhibit rules');
  });
});

describe('the metric names alerts.yml uses', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
  });

  it('reads them out of expressions', () => {
    expect(
      metricNames('max_over_time(a_b[1h]) - min_over_time(a_b{x="y z"}[1h]) > 0 and on(run) c > bool 2 unless sum by (node) (d_total) * ignoring(x) e'),
    ).toEqual(['a_b', 'c', 'd_total', 'e']);
  });

  it('are all in the real /api/metrics exposition, with samples', async () => {
    await seedAlertInputs(database.db);
    const state = {};
    sampleNode(state, () => null, 'nodeA');
    await new Promise((r) => setTimeout(r, 50));
    await storeSamples(database.db, [...sampleNode(state, () => null, 'nodeA'), ...(await sampleCluster(database.db, 0.3))]);
    const { text } = await metricsExposition(database.db);
    const exposed = new Set([...text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? \S+$/gm)].map((m) => m[1]!));
    const used = [...new Set(rules.flatMap((r) => metricNames(r.expr)))].sort();
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter((n) => !exposed.has(n))).toEqual([]);
  });
});
