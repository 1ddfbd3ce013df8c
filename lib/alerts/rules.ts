import type { AlertLabels, AlertRuleName, AlertSeverity, AlertThresholds } from '@/core/alerts';
import type { RlMetric } from '@/core/metrics';
import type { AlertInputs, RunInput } from './inputs';

/** A condition that holds now: the rule's labels beyond alertname/severity, the observed value, what to say. */
export type Condition = { labels: AlertLabels; value: number | null; summary: string };

export type AlertRule = {
  name: AlertRuleName;
  severity: AlertSeverity;
  /** how long the condition must hold before the alert fires (Prometheus's `for:`) */
  forS: number;
  /** what it means and what to do (docs/monitoring.md repeats it) */
  description: string;
  evaluate(inputs: AlertInputs): Condition[];
};

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(2));

/** The thresholds that apply to a run: its own over the cluster's. */
export function runThresholds(run: RunInput, cluster: AlertThresholds): AlertThresholds {
  return { ...cluster, ...(run.alerts?.thresholds ?? {}) };
}

/** Runs that have not turned `rule` off, with their thresholds. */
function runsFor(inputs: AlertInputs, rule: AlertRuleName): { run: RunInput; t: AlertThresholds }[] {
  return inputs.runs.filter((r) => !r.alerts?.off.includes(rule)).map((run) => ({ run, t: runThresholds(run, inputs.thresholds) }));
}

const latest = (run: RunInput, m: RlMetric): number | undefined => {
  const s = run.series[m];
  return s && s.length > 0 ? s[s.length - 1] : undefined;
};

/** A rule on the newest value of one iteration metric. */
function metricRule(
  name: AlertRuleName,
  metric: RlMetric,
  o: {
    severity?: AlertSeverity;
    forS: number;
    description: string;
    breached: (v: number, t: AlertThresholds) => number | null;
    say: (v: number, limit: number) => string;
  },
): AlertRule {
  return {
    name,
    severity: o.severity ?? 'warning',
    forS: o.forS,
    description: o.description,
    evaluate(inputs) {
      const out: Condition[] = [];
      for (const { run, t } of runsFor(inputs, name)) {
        const v = latest(run, metric);
        if (v === undefined) continue;
        const limit = o.breached(v, t);
        if (limit !== null) out.push({ labels: { run: run.id, run_name: run.name }, value: v, summary: `${run.name}: ${o.say(v, limit)}` });
      }
      return out;
    },
  };
}

/** reward_mean's newest value against the mean of the `rewardWindow` iterations before it. */
function rewardShift(run: RunInput, t: AlertThresholds): { now: number; before: number } | null {
  const s = run.series.reward_mean ?? [];
  if (s.length < 2) return null;
  const now = s[s.length - 1] ?? 0;
  const window = s.slice(Math.max(0, s.length - 1 - t.rewardWindow), s.length - 1);
  return { now, before: window.reduce((a, b) => a + b, 0) / window.length };
}

export const ALERT_RULE_DEFINITIONS: readonly AlertRule[] = [
  {
    name: 'RunRewardCollapse',
    severity: 'warning',
    forS: 0,
    description:
      "The newest iteration's mean reward fell well below the mean of the iterations before it. Look at the run's KL, entropy and clip fraction (a too-large update or learning rate), the infrastructure failure rate (episodes scored 0 because sandboxes failed) and recent episodes' transcripts; compare with the control arm.",
    evaluate(inputs) {
      const out: Condition[] = [];
      for (const { run, t } of runsFor(inputs, 'RunRewardCollapse')) {
        const r = rewardShift(run, t);
        if (r && r.before - r.now > t.rewardDrop)
          out.push({
            labels: { run: run.id, run_name: run.name },
            value: r.now,
            summary: `${run.name}: mean reward ${fmt(r.now)}, down from ${fmt(r.before)} over the previous ${t.rewardWindow} iteration(s) (drop limit ${fmt(t.rewardDrop)})`,
          });
      }
      return out;
    },
  },
  {
    name: 'RunRewardJump',
    severity: 'warning',
    forS: 0,
    description:
      'The mean reward rose far faster than before. Real progress is possible, but so is reward hacking: read the newest high-reward episodes, check tamper flags and the reviewers’ verdicts before trusting it.',
    evaluate(inputs) {
      const out: Condition[] = [];
      for (const { run, t } of runsFor(inputs, 'RunRewardJump')) {
        const r = rewardShift(run, t);
        if (r && r.now - r.before > t.rewardJump)
          out.push({
            labels: { run: run.id, run_name: run.name },
            value: r.now,
            summary: `${run.name}: mean reward jumped to ${fmt(r.now)} from ${fmt(r.before)} (jump limit ${fmt(t.rewardJump)}); check for reward hacking`,
          });
      }
      return out;
    },
  },
  metricRule('RunKlHigh', 'kl', {
    forS: 120,
    description: 'The policy moved far from the reference. Lower the learning rate or raise the KL coefficient; check clip fraction and gradient norm.',
    breached: (v, t) => (v > t.klMax ? t.klMax : null),
    say: (v, l) => `KL to the reference is ${fmt(v)} (limit ${fmt(l)})`,
  }),
  metricRule('RunEntropyCollapse', 'entropy', {
    forS: 120,
    description:
      'The policy became nearly deterministic, so groups stop exploring and advantages vanish. Consider an entropy bonus, a higher temperature or a lower learning rate.',
    breached: (v, t) => (v < t.entropyMin ? t.entropyMin : null),
    say: (v, l) => `token entropy is ${fmt(v)} (floor ${fmt(l)})`,
  }),
  metricRule('RunGradNormHigh', 'grad_norm', {
    forS: 0,
    description: 'Gradient norm before clipping is very large: an unstable update. Check the loss, the learning rate and long or overlong sequences.',
    breached: (v, t) => (v > t.gradNormMax ? t.gradNormMax : null),
    say: (v, l) => `gradient norm ${fmt(v)} (limit ${fmt(l)})`,
  }),
  metricRule('RunClipFractionHigh', 'clip_fraction', {
    forS: 120,
    description: 'Most policy tokens hit the PPO clip: updates are too large for the trust region. Lower the learning rate or the update epochs.',
    breached: (v, t) => (v > t.clipFractionMax ? t.clipFractionMax : null),
    say: (v, l) => `clip fraction ${fmt(v)} (limit ${fmt(l)})`,
  }),
  metricRule('RunSkippedUpdates', 'skipped_updates', {
    severity: 'critical',
    forS: 0,
    description:
      'The learner skipped optimizer steps because the loss or gradients were not finite. Inspect the iteration’s episodes (empty or huge sequences), the learning rate and mixed precision settings.',
    breached: (v) => (v > 0 ? 0 : null),
    say: (v) => `${Math.round(v)} update(s) skipped: non-finite loss or gradient`,
  }),
  metricRule('RunInfraFailures', 'infra_failed_rate', {
    forS: 300,
    description:
      'Many episodes failed for infrastructure reasons (sandbox errors, environment mismatches, lost workers). See the run’s episodes filtered by status, the Workers page and sandbox logs.',
    breached: (v, t) => (v > t.infraFailedRateMax ? t.infraFailedRateMax : null),
    say: (v, l) => `${(v * 100).toFixed(0)}% of episodes failed on infrastructure (limit ${(l * 100).toFixed(0)}%)`,
  }),
  {
    name: 'RunTamperedReward',
    severity: 'critical',
    forS: 0,
    description:
      'The grader found an episode trying to alter its own grading (test files, the report channel). The reward was zeroed; read the episode and its patch, and watch whether the policy is learning to tamper.',
    evaluate(inputs) {
      return runsFor(inputs, 'RunTamperedReward').flatMap(({ run }) =>
        run.tampered.map((e) => ({
          labels: { run: run.id, run_name: run.name, episode: e.episodeId },
          value: 1,
          summary: `${run.name}: episode ${e.episodeId.slice(0, 8)} (iteration ${e.iteration}) tampered with its grading`,
        })),
      );
    },
  },
  {
    name: 'RunReviewDisagreement',
    severity: 'warning',
    forS: 0,
    description:
      'Reviewers disagree with each other on double-reviewed rewards (low Cohen’s kappa), so spot checks no longer vouch for the rewards. Look at disputed verdicts on the Reviewers page and clarify the guidelines.',
    evaluate(inputs) {
      const out: Condition[] = [];
      for (const { run, t } of runsFor(inputs, 'RunReviewDisagreement')) {
        const a = run.agreement;
        if (a && a.kappa !== null && a.pairs >= t.kappaMinPairs && a.kappa < t.kappaMin)
          out.push({
            labels: { run: run.id, run_name: run.name },
            value: a.kappa,
            summary: `${run.name}: reviewer agreement kappa ${fmt(a.kappa)} over ${a.pairs} pairs (floor ${fmt(t.kappaMin)})`,
          });
      }
      return out;
    },
  },
  {
    name: 'EnvironmentQuarantined',
    severity: 'warning',
    forS: 0,
    description: 'An environment is quarantined: no episode starts on it. Read the quarantine reason and its disputed verdicts; rebuild or clear it.',
    evaluate: (inputs) =>
      inputs.environments
        .filter((e) => e.quarantined)
        .map((e) => ({
          labels: { environment: e.name },
          value: 1,
          summary: `environment ${e.name} is quarantined${e.quarantineReason ? `: ${e.quarantineReason}` : ''}`,
        })),
  },
  {
    name: 'EnvironmentHashMismatch',
    severity: 'critical',
    forS: 0,
    description:
      'Sandboxes were refused because an environment’s files no longer match its content hash (in the last 10 minutes). Someone or something changed a host’s copy; rebuild it with `crucible env build` and find out who changed it.',
    evaluate: (inputs) =>
      inputs.sandboxes.envMismatches.map((m) => ({
        labels: { environment: m.environment },
        value: m.count,
        summary: `environment ${m.environment}: ${m.count} sandbox start(s) refused in 10 min, its files do not match its hash`,
      })),
  },
  {
    name: 'SandboxSecurityDenials',
    severity: 'warning',
    forS: 0,
    description:
      'Many denied egress connections or seccomp kills in 10 minutes: a policy probing its sandbox. Read the audit log (action sandbox.exec) for the runs and episodes involved.',
    evaluate(inputs) {
      const n = inputs.sandboxes.securityDenials;
      const limit = inputs.thresholds.securityDenialsMax;
      return n > limit ? [{ labels: {}, value: n, summary: `${n} sandbox security denials in 10 min (limit ${limit})` }] : [];
    },
  },
  {
    name: 'WorkerLost',
    severity: 'warning',
    // as long as NodeLost's, so a whole node's loss inhibits its workers' alerts before they are sent
    forS: 60,
    description:
      'A worker process stopped heartbeating. Its jobs are re-run elsewhere once their lease expires; see its last log lines on the Workers page and the host’s supervisor.',
    evaluate: (inputs) =>
      inputs.workers
        .filter((w) => w.status === 'lost')
        .map((w) => ({ labels: { node: w.node, worker: w.id }, value: 1, summary: `worker ${w.id} (${w.kind}) on ${w.node} stopped heartbeating` })),
  },
  {
    name: 'NodeLost',
    severity: 'critical',
    forS: 60,
    description:
      'Every worker of a node stopped heartbeating: the host is down or cut off. Its jobs move to other nodes; check the machine. Its workers’ alerts are inhibited meanwhile.',
    evaluate(inputs) {
      const byNode = new Map<string, { lost: number; running: number }>();
      for (const w of inputs.workers) {
        const n = byNode.get(w.node) ?? { lost: 0, running: 0 };
        if (w.status === 'lost') n.lost++;
        else if (w.status === 'running') n.running++;
        byNode.set(w.node, n);
      }
      return [...byNode]
        .filter(([, n]) => n.lost > 0 && n.running === 0)
        .map(([node, n]) => ({ labels: { node }, value: n.lost, summary: `node ${node}: all ${n.lost} worker(s) stopped heartbeating` }));
    },
  },
  {
    name: 'QueueWaitHigh',
    severity: 'warning',
    forS: 300,
    description:
      'Work in a tier has waited longer than its target (critical: `queueWaitS`; others as set in `queueWaitTiers`): the cluster is full or its quota too small. See /resources (queues) and the scheduler’s decisions; for the critical tier, preemption should make room.',
    evaluate(inputs) {
      const targets: Record<string, number> = { critical: inputs.thresholds.queueWaitS, ...inputs.thresholds.queueWaitTiers };
      return inputs.queues
        .filter((q) => targets[q.tier] !== undefined && q.queued > 0 && q.oldestWaitS > targets[q.tier]!)
        .map((q) => ({
          labels: { tier: q.tier },
          value: q.oldestWaitS,
          summary: `${q.queued} ${q.tier}-tier job(s) queued; the oldest has waited ${Math.round(q.oldestWaitS)} s (target ${targets[q.tier]} s)`,
        }));
    },
  },
  {
    name: 'DiskPressure',
    severity: 'warning',
    forS: 300,
    description:
      'The filesystem holding a node’s data directory (sandboxes, environments, artifact caches, checkpoints, the embedded database) is nearly full. Garbage-collect artifacts (`crucible artifacts gc`), shrink the cache or add disk.',
    evaluate: (inputs) =>
      inputs.nodes.flatMap((n) =>
        n.diskTotalMb && n.diskUsedMb !== undefined && n.diskUsedMb / n.diskTotalMb > inputs.thresholds.diskUsedMax
          ? [
              {
                labels: { node: n.node },
                value: n.diskUsedMb / n.diskTotalMb,
                summary: `node ${n.node}: disk ${((n.diskUsedMb / n.diskTotalMb) * 100).toFixed(0)}% used`,
              },
            ]
          : [],
      ),
  },
  {
    name: 'MemoryPressure',
    severity: 'warning',
    forS: 300,
    description:
      'A node’s memory is nearly all used: sandboxes will hit their limits or the kernel will kill processes. Lower concurrency or per-task memory quotas.',
    evaluate: (inputs) =>
      inputs.nodes.flatMap((n) =>
        n.memoryTotalMb && n.memoryUsedMb !== undefined && n.memoryUsedMb / n.memoryTotalMb > inputs.thresholds.memoryUsedMax
          ? [
              {
                labels: { node: n.node },
                value: n.memoryUsedMb / n.memoryTotalMb,
                summary: `node ${n.node}: memory ${((n.memoryUsedMb / n.memoryTotalMb) * 100).toFixed(0)}% used`,
              },
            ]
          : [],
      ),
  },
];

/** A condition with its rule's identity: what the state machine tracks. */
export type ActiveCondition = Condition & { rule: AlertRuleName; severity: AlertSeverity; forS: number; labels: AlertLabels };

/** Every rule's conditions now, labelled with `alertname` and `severity`. A rule that throws is reported, not fatal. */
export function evaluateRules(inputs: AlertInputs, rules: readonly AlertRule[] = ALERT_RULE_DEFINITIONS): { active: ActiveCondition[]; errors: string[] } {
  const active: ActiveCondition[] = [];
  const errors: string[] = [];
  for (const rule of rules) {
    try {
      for (const c of rule.evaluate(inputs))
        active.push({
          ...c,
          rule: rule.name,
          severity: rule.severity,
          forS: rule.forS,
          labels: { alertname: rule.name, severity: rule.severity, ...c.labels },
        });
    } catch (e) {
      errors.push(`${rule.name}: ${(e as Error).message}`);
    }
  }
  return { active, errors };
}
