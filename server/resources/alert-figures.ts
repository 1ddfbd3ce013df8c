import type { Db } from '@/db/client';
import { DEFAULT_ALERT_THRESHOLDS } from '@/core/alerts';
import { RL_ITERATION_METRICS, type RlIterationMetric } from '@/core/metrics';
import { SCHEDULING_TIERS } from '@/core/queues';
import { gatherAlertInputs } from '@/server/alerts/gather';

/**
 * What the Prometheus alert rules (deploy/prometheus/alerts.yml) need beyond the resource
 * figures: the built-in evaluator's own snapshot (server/alerts/gather.ts), so the two agree,
 * shaped for gauges: live runs' newest RL metrics, reward baseline, episodes caught tampering
 * in the last hour and reviewer agreement; running and lost workers, and nodes; quarantined
 * environments; the oldest queued job per tier; sandbox hash mismatches and security denials
 * of the last 10 minutes.
 */

/** reward_mean iterations before the newest that the reward baseline averages (the default `rewardWindow`). */
export const REWARD_BASELINE_ITERATIONS = DEFAULT_ALERT_THRESHOLDS.rewardWindow;

export type RunAlertFigures = {
  run: string;
  name: string;
  /** The newest value (highest step) of each unlabelled per-iteration RL metric the run has. */
  rl: Partial<Record<RlIterationMetric, number>>;
  /** Mean reward_mean of the REWARD_BASELINE_ITERATIONS iterations before the newest (null before the second iteration). */
  rewardBaseline: number | null;
  /** Episodes whose grader caught tampering (`rewards.components.tampered`) with a reward of the last hour: what RunTamperedReward fires on. */
  tamperedLastHour: number;
  /** Double-reviewed episodes with both verdicts in, and Cohen's kappa over them (null without any). */
  reviewPairs: number;
  reviewKappa: number | null;
};

export type AlertFigures = {
  runs: RunAlertFigures[];
  /** Running workers (up) and lost ones of the last day that nothing replaced (down). */
  workers: { worker: string; kind: string; node: string; up: boolean }[];
  /** Nodes of those workers: up when one of its workers runs, down when only lost ones are left. */
  nodes: { node: string; up: boolean }[];
  /** Quarantined environments (others are not listed). */
  environments: { environment: string; quarantined: boolean }[];
  /** Seconds the oldest queued scheduled job of each tier has waited (0 when none is queued). */
  queueWait: { tier: string; oldestSeconds: number }[];
  /** Sandbox starts refused in the last 10 minutes because the environment's files no longer match its hash, per environment. */
  envMismatches: { environment: string; count: number }[];
  /** Denied egress connections and seccomp (SIGSYS) kills in the last 10 minutes. */
  securityDenials: number;
};

export async function alertFigures(db: Db, now = new Date()): Promise<AlertFigures> {
  const inputs = await db.transaction((tx) => gatherAlertInputs(tx, now, DEFAULT_ALERT_THRESHOLDS, RL_ITERATION_METRICS), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
  const nodes = new Map<string, boolean>();
  for (const w of inputs.workers) nodes.set(w.node, (nodes.get(w.node) ?? false) || w.status === 'running');
  const wait = new Map<string, number>(SCHEDULING_TIERS.map((t) => [t, 0]));
  for (const q of inputs.queues) wait.set(q.tier, Math.max(0, q.oldestWaitS));
  return {
    runs: inputs.runs.map((r) => {
      const rewards = r.series.reward_mean ?? [];
      const before = rewards.slice(Math.max(0, rewards.length - 1 - REWARD_BASELINE_ITERATIONS), -1);
      return {
        run: r.id,
        name: r.name,
        rl: Object.fromEntries(Object.entries(r.series).map(([m, values]) => [m, values[values.length - 1]])) as Partial<Record<RlIterationMetric, number>>,
        rewardBaseline: before.length > 0 ? before.reduce((a, b) => a + b, 0) / before.length : null,
        tamperedLastHour: r.tampered.length,
        reviewPairs: r.agreement?.pairs ?? 0,
        reviewKappa: r.agreement?.kappa ?? null,
      };
    }),
    workers: inputs.workers
      .map((w) => ({ worker: w.id, kind: w.kind, node: w.node, up: w.status === 'running' }))
      .sort((a, b) => a.worker.localeCompare(b.worker)),
    nodes: [...nodes.entries()].map(([node, up]) => ({ node, up })).sort((a, b) => a.node.localeCompare(b.node)),
    environments: inputs.environments.map((e) => ({ environment: e.name, quarantined: e.quarantined })),
    queueWait: [...wait.entries()].map(([tier, oldestSeconds]) => ({ tier, oldestSeconds })).sort((a, b) => a.tier.localeCompare(b.tier)),
    envMismatches: inputs.sandboxes.envMismatches,
    securityDenials: inputs.sandboxes.securityDenials,
  };
}
