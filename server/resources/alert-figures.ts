import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { DEFAULT_ALERT_THRESHOLDS } from '@/core/alerts';
import { METRIC_SOURCES, RL_ITERATION_METRICS, type RlIterationMetric } from '@/core/metrics';
import { SCHEDULING_TIERS } from '@/core/queues';
import { LIVE_RUN_STATUSES } from '@/core/run-status';
import { cohensKappa, type Verdict } from '@/server/reviews/kappa';

/**
 * What the Prometheus alert rules (deploy/prometheus/alerts.yml) need beyond the resource
 * figures, read as the built-in evaluator reads it (workers/alerts/gather.ts), so the two
 * agree: live runs' newest RL metrics, reward baseline, tampered episodes and reviewer
 * agreement; running and lost workers, and nodes; quarantined environments; the oldest queued
 * job per tier; sandbox hash mismatches and security denials of the last 10 minutes.
 * Read-only, one query per figure, each bounded (live runs, at most RUN_LIMIT; lost workers of
 * the last day; audit rows of the last 10 minutes).
 */

const RUN_LIMIT = 500;
/** A lost worker is an alert for this long unless replaced (as the built-in WorkerLost). */
export const LOST_WORKER_WINDOW_MS = 86_400_000;
/** Sandbox events (hash mismatches, denials) are counted over this window. */
export const SANDBOX_WINDOW_MS = 600_000;
/** reward_mean iterations before the newest that the reward baseline averages (the default `rewardWindow`). */
export const REWARD_BASELINE_ITERATIONS = DEFAULT_ALERT_THRESHOLDS.rewardWindow;

export type RunAlertFigures = {
  run: string;
  name: string;
  /** The newest value (highest step) of each unlabelled per-iteration RL metric the run has. */
  rl: Partial<Record<RlIterationMetric, number>>;
  /** Mean reward_mean of the REWARD_BASELINE_ITERATIONS iterations before the newest (null before the second iteration). */
  rewardBaseline: number | null;
  /** Scored episodes whose grader caught tampering (`rewards.components.tampered`), ever. */
  tamperedEpisodes: number;
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
  environments: { environment: string; quarantined: boolean }[];
  /** Seconds the oldest queued scheduled job of each tier has waited (0 when none is queued). */
  queueWait: { tier: string; oldestSeconds: number }[];
  /** Sandbox starts refused in the last 10 minutes because the environment's files no longer match its hash, per environment. */
  envMismatches: { environment: string; count: number }[];
  /** Denied egress connections and seccomp (SIGSYS) kills in the last 10 minutes. */
  securityDenials: number;
};

export async function alertFigures(db: Db): Promise<AlertFigures> {
  return db.transaction(
    async (tx) => {
      const runRows = await tx.execute<{ id: string; name: string; tampered: number }>(sql`
        select r.id, r.name,
          (select count(*)::int from episodes e join rewards w on w.episode_id = e.id
            where e.run_id = r.id and (w.components->>'tampered')::float8 > 0) as tampered
        from runs r where r.status in ${[...LIVE_RUN_STATUSES]} order by r.created_at desc limit ${RUN_LIMIT}`);
      const runIds = sql`array[${sql.join(
        runRows.map((r) => sql`${r.id}::uuid`),
        sql`, `,
      )}]::uuid[]`;
      const names = sql.join(
        RL_ITERATION_METRICS.map((n) => sql`${n}`),
        sql`, `,
      );
      const iteration = sql`source = ${METRIC_SOURCES.rl} and labels = '{}'::jsonb and step is not null`;
      // One index probe per (run, metric): metric_samples_run_name_idx is (run_id, name, step).
      const rl = await tx.execute<{ run: string; name: RlIterationMetric; value: number }>(sql`
        select r.id as run, n.name, m.value
        from unnest(${runIds}) as r(id) cross join unnest(array[${names}]::text[]) as n(name)
        cross join lateral (
          select value from metric_samples where run_id = r.id and name = n.name and ${iteration} order by step desc limit 1) m`);
      const baselines = await tx.execute<{ run: string; baseline: number }>(sql`
        select r.id as run, avg(m.value)::float8 as baseline
        from unnest(${runIds}) as r(id)
        cross join lateral (
          select value from metric_samples where run_id = r.id and name = 'reward_mean' and ${iteration}
          order by step desc offset 1 limit ${REWARD_BASELINE_ITERATIONS}) m
        group by r.id`);
      const pairs = await tx.execute<{ run: string; va: Verdict; vb: Verdict }>(sql`
        select x.run_id as run, x.verdict as va, y.verdict as vb
        from reviews x join reviews y on y.episode_id = x.episode_id and y.slot > x.slot
        where x.run_id = any(${runIds}) and x.verdict is not null and y.verdict is not null`);
      // A lost worker counts until a worker of its kind on its node runs again (the supervisor replaced it).
      const workerRows = await tx.execute<{ id: string; kind: string; node: string; status: string }>(sql`
        select w.id, w.kind, coalesce(w.node, w.hostname) as node, w.status from workers w
        where w.status = 'running'
          or (w.status = 'lost' and w.heartbeat_at > now() - ${LOST_WORKER_WINDOW_MS} * interval '1 millisecond'
              and not exists (select 1 from workers r where r.status = 'running' and r.kind = w.kind
                              and coalesce(r.node, r.hostname) = coalesce(w.node, w.hostname) and r.started_at > w.heartbeat_at))
        order by w.id`);
      const envs = await tx.execute<{ name: string; quarantined: boolean }>(
        sql`select name, quarantined_at is not null as quarantined from environments order by name`,
      );
      const waits = await tx.execute<{ tier: string; oldest: number }>(sql`
        select tier, extract(epoch from now() - min(queued_at))::float8 as oldest
        from jobs where state = 'queued' and tier is not null group by tier`);
      const since = sql`now() - ${SANDBOX_WINDOW_MS} * interval '1 millisecond'`;
      const mismatches = await tx.execute<{ environment: string; count: number }>(sql`
        select coalesce(e.name, a.details->>'envHash', 'unknown') as environment, count(*)::int as count
        from audit_log a left join environments e on e.content_hash = a.details->>'envHash'
        where a.action = 'sandbox.exec' and a.at > ${since} and a.details->>'status' = 'env_mismatch'
        group by 1 order by 2 desc limit 50`);
      const [denials] = await tx.execute<{ n: number }>(sql`
        select coalesce(sum(
          (select count(*) from jsonb_array_elements(case when jsonb_typeof(a.details->'egress') = 'array' then a.details->'egress' else '[]'::jsonb end) x
           where x->>'allowed' = 'false')
          + case when a.details->>'signal' = 'SIGSYS' then 1 else 0 end), 0)::int as n
        from audit_log a where a.action = 'sandbox.exec' and a.at > ${since}`);

      const rlByRun = new Map<string, Partial<Record<RlIterationMetric, number>>>();
      for (const r of rl) rlByRun.set(r.run, { ...rlByRun.get(r.run), [r.name]: r.value });
      const baseline = new Map(baselines.map((b) => [b.run, b.baseline]));
      const pairsByRun = new Map<string, [Verdict, Verdict][]>();
      for (const p of pairs) pairsByRun.set(p.run, [...(pairsByRun.get(p.run) ?? []), [p.va, p.vb]]);
      const nodes = new Map<string, boolean>();
      for (const w of workerRows) nodes.set(w.node, (nodes.get(w.node) ?? false) || w.status === 'running');
      const wait = new Map<string, number>(SCHEDULING_TIERS.map((t) => [t, 0]));
      for (const w of waits) wait.set(w.tier, Math.max(0, w.oldest));

      return {
        runs: runRows.map((r) => {
          const items = pairsByRun.get(r.id) ?? [];
          return {
            run: r.id,
            name: r.name,
            rl: rlByRun.get(r.id) ?? {},
            rewardBaseline: baseline.get(r.id) ?? null,
            tamperedEpisodes: r.tampered,
            reviewPairs: items.length,
            reviewKappa: cohensKappa(items),
          };
        }),
        workers: workerRows.map((w) => ({ worker: w.id, kind: w.kind, node: w.node, up: w.status === 'running' })),
        nodes: [...nodes.entries()].map(([node, up]) => ({ node, up })).sort((a, b) => a.node.localeCompare(b.node)),
        environments: envs.map((e) => ({ environment: e.name, quarantined: e.quarantined })),
        queueWait: [...wait.entries()].map(([tier, oldestSeconds]) => ({ tier, oldestSeconds })).sort((a, b) => a.tier.localeCompare(b.tier)),
        envMismatches: mismatches.map((m) => ({ environment: m.environment, count: m.count })),
        securityDenials: denials?.n ?? 0,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
