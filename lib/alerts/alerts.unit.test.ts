import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_THRESHOLDS } from '@/core/alerts';
import { advanceAlerts, fingerprint, type AlertRecord } from './alert-state';
import { applyFilters, groupOf, planNotifications, type GroupState } from './filtering';
import type { AlertInputs, RunInput } from './inputs';
import { ALERT_RULE_DEFINITIONS, evaluateRules } from './rules';
import { webhookBody } from './webhook-payload';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const run = (o: Partial<RunInput> = {}): RunInput => ({ id: 'r1', name: 'alpha', series: {}, tampered: [], agreement: null, ...o });
const inputs = (o: Partial<AlertInputs> = {}): AlertInputs => ({
  runs: [],
  workers: [],
  nodes: [],
  environments: [],
  queues: [],
  sandboxes: { envMismatches: [], securityDenials: 0 },
  thresholds: DEFAULT_ALERT_THRESHOLDS,
  ...o,
});
const rules = (i: AlertInputs) => evaluateRules(i).active.map((c) => c.rule);

describe('rules on plain data', () => {
  it('reward collapse and jump compare the newest iteration with the window before it', () => {
    expect(rules(inputs({ runs: [run({ series: { reward_mean: [0.6, 0.6, 0.62, 0.2] } })] }))).toEqual(['RunRewardCollapse']);
    expect(rules(inputs({ runs: [run({ series: { reward_mean: [0.1, 0.1, 0.9] } })] }))).toEqual(['RunRewardJump']);
    expect(rules(inputs({ runs: [run({ series: { reward_mean: [0.5, 0.45, 0.55, 0.5] } })] }))).toEqual([]);
    expect(rules(inputs({ runs: [run({ series: { reward_mean: [0.9] } })] }))).toEqual([]);
  });

  it("a run's own thresholds override the cluster's, and a run can turn a rule off", () => {
    const kl = { kl: [0.3] };
    expect(rules(inputs({ runs: [run({ series: kl })] }))).toEqual([]);
    expect(rules(inputs({ runs: [run({ series: kl, alerts: { thresholds: { klMax: 0.1 }, off: [] } })] }))).toEqual(['RunKlHigh']);
    expect(rules(inputs({ runs: [run({ series: { kl: [3] }, alerts: { thresholds: {}, off: ['RunKlHigh'] } })] }))).toEqual([]);
  });

  it('non-finite updates, tampering per episode, low kappa only with enough pairs', () => {
    const r = run({
      series: { skipped_updates: [0, 2] },
      tampered: [
        { episodeId: 'e1', iteration: 3 },
        { episodeId: 'e2', iteration: 3 },
      ],
    });
    const active = evaluateRules(inputs({ runs: [r] })).active;
    expect(active.map((c) => c.rule)).toEqual(['RunSkippedUpdates', 'RunTamperedReward', 'RunTamperedReward']);
    expect(active[1]!.labels).toEqual({ alertname: 'RunTamperedReward', severity: 'critical', run: 'r1', run_name: 'alpha', episode: 'e1' });
    expect(rules(inputs({ runs: [run({ agreement: { kappa: 0.1, pairs: 4 } })] }))).toEqual([]);
    expect(rules(inputs({ runs: [run({ agreement: { kappa: 0.1, pairs: 12 } })] }))).toEqual(['RunReviewDisagreement']);
  });

  it('cluster rules: lost workers and nodes, queues, disk and memory, environments, sandboxes', () => {
    const i = inputs({
      workers: [
        { id: 'w1', kind: 'jobs', node: 'a', status: 'lost' },
        { id: 'w2', kind: 'metrics', node: 'a', status: 'lost' },
        { id: 'w3', kind: 'jobs', node: 'b', status: 'lost' },
        { id: 'w4', kind: 'jobs', node: 'b', status: 'running' },
      ],
      nodes: [{ node: 'a', memoryUsedMb: 95, memoryTotalMb: 100, diskUsedMb: 50, diskTotalMb: 100 }],
      queues: [
        { tier: 'critical', queued: 2, oldestWaitS: 400 },
        { tier: 'standard', queued: 9, oldestWaitS: 9000 },
      ],
      environments: [{ name: 'py', quarantined: true, quarantineReason: 'disputed' }],
      sandboxes: { envMismatches: [{ environment: 'py', count: 3 }], securityDenials: 21 },
    });
    expect(rules(i).sort()).toEqual(
      [
        'EnvironmentHashMismatch',
        'EnvironmentQuarantined',
        'MemoryPressure',
        'NodeLost',
        'QueueWaitHigh',
        'SandboxSecurityDenials',
        'WorkerLost',
        'WorkerLost',
        'WorkerLost',
      ].sort(),
    );
  });

  it('queue waits: the critical tier by default, other tiers where a target is set', () => {
    const queues = [
      { tier: 'critical', queued: 1, oldestWaitS: 200 },
      { tier: 'standard', queued: 3, oldestWaitS: 5000 },
    ];
    expect(rules(inputs({ queues }))).toEqual([]);
    const withTiers = inputs({ queues, thresholds: { ...DEFAULT_ALERT_THRESHOLDS, queueWaitTiers: { standard: 3600 } } });
    expect(evaluateRules(withTiers).active.map((c) => [c.rule, c.labels.tier])).toEqual([['QueueWaitHigh', 'standard']]);
  });

  it('a rule that throws is reported and the others still run', () => {
    const bad = {
      name: 'WorkerLost' as const,
      severity: 'warning' as const,
      forS: 0,
      description: '',
      evaluate: () => {
        throw new Error('boom');
      },
    };
    expect(evaluateRules(inputs(), [bad]).errors).toEqual(['WorkerLost: boom']);
  });
});

/** Drive the state machine like the evaluator: conditions at explicit times, no clock. */
function step(prev: AlertRecord[], i: AlertInputs, now: Date) {
  return advanceAlerts(prev, evaluateRules(i).active, now).next;
}

describe('alert states', () => {
  const kl = (v: number) => inputs({ runs: [run({ series: { kl: [v] } })] });

  it("is pending until it has held for the rule's for:, then firing, then resolved; same labels stay one alert", () => {
    let a = step([], kl(2), at(0));
    expect(a.map((x) => x.state)).toEqual(['pending']);
    a = step(a, kl(2), at(119));
    expect(a.map((x) => x.state)).toEqual(['pending']);
    a = step(a, kl(3), at(120));
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ state: 'firing', firedAt: at(120), activeSince: at(0), value: 3 });
    a = step(a, kl(0.1), at(130));
    expect(a[0]).toMatchObject({ state: 'resolved', resolvedAt: at(130) });
    a = step(a, kl(2), at(140));
    expect(a[0]).toMatchObject({ state: 'pending', activeSince: at(140), firedAt: null });
  });

  it('a pending alert whose condition clears is dropped, never fired', () => {
    const a = step([], kl(2), at(0));
    const { next, dropped } = advanceAlerts(a, [], at(10));
    expect(next).toEqual([]);
    expect(dropped).toEqual([a[0]!.fingerprint]);
  });

  it('fingerprints do not depend on label order', () => {
    expect(fingerprint({ a: '1', b: '2' })).toBe(fingerprint({ b: '2', a: '1' }));
    expect(fingerprint({ a: '1' })).not.toBe(fingerprint({ a: '2' }));
  });
});

describe('filtering: inhibition, silences, grouping, notifications', () => {
  const lostNode = inputs({
    workers: [
      { id: 'w1', kind: 'jobs', node: 'a', status: 'lost' },
      { id: 'w2', kind: 'jobs', node: 'c', status: 'lost' },
      { id: 'w3', kind: 'jobs', node: 'c', status: 'running' },
    ],
  });

  it("a lost node inhibits its own workers' alerts, not another node's", () => {
    let a = step([], lostNode, at(0));
    a = applyFilters(step(a, lostNode, at(60)), [], at(60));
    const byRule = (r: string, node: string) => a.find((x) => x.rule === r && x.labels.node === node)!;
    expect(byRule('NodeLost', 'a').state).toBe('firing');
    expect(byRule('WorkerLost', 'a').inhibitedBy).toBe(byRule('NodeLost', 'a').fingerprint);
    expect(byRule('WorkerLost', 'c').inhibitedBy).toBeNull();
  });

  it('silences mute matching alerts until they expire or end', () => {
    const a = step([], kl2(), at(200));
    const silence = { id: 's1', matchers: { alertname: 'RunSkippedUpdates', run: 'r1' }, expiresAt: at(300), endedAt: null };
    expect(applyFilters(a, [silence], at(250))[0]!.silencedBy).toBe('s1');
    expect(applyFilters(a, [silence], at(300))[0]!.silencedBy).toBeNull();
    expect(applyFilters(a, [{ ...silence, endedAt: at(260) }], at(270))[0]!.silencedBy).toBeNull();
  });
  const kl2 = () => inputs({ runs: [run({ series: { skipped_updates: [1] } })] });

  it('40 tampered episodes of one run are one group and one notification; unchanged sets are not re-sent; resolve once', () => {
    const tampered = Array.from({ length: 40 }, (_, k) => ({ episodeId: `e${k}`, iteration: 1 }));
    const i = inputs({ runs: [run({ tampered })] });
    const groups = new Map<string, GroupState>();
    const plan = (a: AlertRecord[], now: Date) => {
      const p = planNotifications(applyFilters(a, [], now), groups, now, 300);
      for (const g of p.groups) groups.set(g.key, g);
      return p.notifications;
    };
    let a = step([], i, at(0));
    const first = plan(a, at(0));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ kind: 'firing', seq: 1, groupLabels: { alertname: 'RunTamperedReward', run: 'r1' } });
    expect(first[0]!.firing).toHaveLength(40);
    a = step(a, i, at(15));
    expect(plan(a, at(15))).toEqual([]);
    // a 41st within the group interval waits; after it, one update
    const more = inputs({ runs: [run({ tampered: [...tampered, { episodeId: 'e40', iteration: 2 }] })] });
    a = step(a, more, at(30));
    expect(plan(a, at(30))).toEqual([]);
    a = step(a, more, at(300));
    expect(plan(a, at(300)).map((n) => [n.kind, n.seq, n.firing.length])).toEqual([['firing', 2, 41]]);
    a = step(a, inputs({ runs: [run()] }), at(310));
    const resolved = plan(a, at(310));
    expect(resolved.map((n) => [n.kind, n.seq, n.resolved.length])).toEqual([['resolved', 3, 41]]);
    expect(plan(a, at(320))).toEqual([]);
  });

  it('silencing a notified alert sends no resolve, ending the silence no repeat; one muted before notification is held back', () => {
    const groups = new Map<string, GroupState>();
    const plan = (a: AlertRecord[], silences: Parameters<typeof applyFilters>[1], now: Date) => {
      const p = planNotifications(applyFilters(a, silences, now), groups, now, 300);
      for (const g of p.groups) groups.set(g.key, g);
      return p.notifications.map((n) => [n.kind, n.firing.length, n.resolved.length]);
    };
    const two = inputs({
      runs: [
        run({
          tampered: [
            { episodeId: 'e1', iteration: 1 },
            { episodeId: 'e2', iteration: 1 },
          ],
        }),
      ],
    });
    const three = inputs({
      runs: [
        run({
          tampered: [
            { episodeId: 'e1', iteration: 1 },
            { episodeId: 'e2', iteration: 1 },
            { episodeId: 'e3', iteration: 2 },
          ],
        }),
      ],
    });
    const silence = { id: 's', matchers: { alertname: 'RunTamperedReward' }, expiresAt: at(10_000), endedAt: null as Date | null };
    let a = step([], two, at(0));
    expect(plan(a, [], at(0))).toEqual([['firing', 2, 0]]);
    a = step(a, three, at(400));
    expect(plan(a, [silence], at(400))).toEqual([]);
    a = step(a, three, at(800));
    expect(plan(a, [{ ...silence, endedAt: at(700) }], at(800))).toEqual([['firing', 3, 0]]);
  });

  it('groups by alertname, run and node', () => {
    expect(groupOf({ alertname: 'X', severity: 'warning', run: 'r', episode: 'e' })).toEqual({
      key: 'alertname="X",run="r"',
      labels: { alertname: 'X', run: 'r' },
    });
  });

  it("webhook bodies: Alertmanager's JSON and Slack text", () => {
    const [a] = step([], kl2(), at(0));
    const msg = {
      receiver: 'ops',
      groupKey: 'k',
      seq: 1,
      kind: 'firing' as const,
      groupLabels: { alertname: 'RunSkippedUpdates', run: 'r1' },
      consoleUrl: 'http://c',
      alerts: [
        {
          status: 'firing' as const,
          labels: a!.labels,
          annotations: { summary: a!.summary, description: 'd' },
          startsAt: '',
          endsAt: '',
          fingerprint: 'f',
          generatorURL: '',
        },
      ],
    };
    expect(webhookBody(msg, 'json')).toMatchObject({ version: '4', status: 'firing', commonLabels: { alertname: 'RunSkippedUpdates', run: 'r1' } });
    expect(String(webhookBody(msg, 'slack').text)).toContain('[FIRING:1]');
  });
});

describe('docs/monitoring.md', () => {
  it('lists every shipped rule with its severity and for:', () => {
    const doc = readFileSync(new URL('../../docs/monitoring.md', import.meta.url), 'utf8');
    for (const r of ALERT_RULE_DEFINITIONS) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${r.name}\` |`));
      expect(row, `${r.name} has no row in docs/monitoring.md's rules table`).toBeDefined();
      expect(row).toContain(`| ${r.severity} | ${r.forS ? `${r.forS} s` : '—'} |`);
    }
  });
});
