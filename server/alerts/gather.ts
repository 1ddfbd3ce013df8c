import { sql } from 'drizzle-orm';
import type { AlertThresholds } from '@/core/alerts';
import type { RlMetric } from '@/core/metrics';
import { LIVE_RUN_STATUSES } from '@/core/run-status';
import { METRIC_SOURCES } from '@/core/metrics';
import type { RunConfig } from '@/core/run-config';
import type { DbOrTx } from '@/server/audit/service';
import type { AlertInputs, RunInput } from '@/lib/alerts/inputs';
import { cohensKappa, type Verdict } from '@/server/reviews/kappa';

/** Iteration metrics the run rules read. */
export const RULE_METRICS: readonly RlMetric[] = ['reward_mean', 'kl', 'entropy', 'grad_norm', 'clip_fraction', 'skipped_updates', 'infra_failed_rate'];
/** Tampered episodes are alerts for an hour after their reward (an event, not a state). */
const TAMPER_WINDOW_MS = 3_600_000;
/** Sandbox events (mismatches, denials) are counted over this window. */
const SANDBOX_WINDOW_MS = 600_000;
/** A node's resource sample counts while it is this fresh. */
const NODE_SAMPLE_MS = 120_000;
/** Lost workers older than this are history, not alerts. */
const LOST_WINDOW_MS = 86_400_000;

const iso = (d: Date) => d.toISOString();

/**
 * One snapshot of everything the rules read (lib/alerts/inputs.ts), at `now`, shared by the
 * built-in evaluator (workers/alerts) and the Prometheus exporter (server/resources), so the two
 * see the same figures: live runs'
 * newest metrics, tamper flags and reviewer agreement; lost workers; nodes' newest samples;
 * quarantined environments; critical-tier queue waits; sandbox mismatches and denials. Each
 * part is one bounded query.
 */
export async function gatherAlertInputs(
  db: DbOrTx,
  now: Date,
  thresholds: AlertThresholds,
  /** the metrics whose newest iterations to read (the Prometheus exporter reads every iteration metric) */
  seriesMetrics: readonly RlMetric[] = RULE_METRICS,
): Promise<AlertInputs> {
  const runRows = await db.execute<{ id: string; name: string; config: RunConfig }>(
    sql`select id, name, config from runs where status in (${sql.join(
      LIVE_RUN_STATUSES.map((s) => sql`${s}`),
      sql`, `,
    )}) order by created_at desc limit 500`,
  );
  const runIds = runRows.map((r) => r.id);
  const runs = new Map<string, RunInput>(
    runRows.map((r) => [r.id, { id: r.id, name: r.name, alerts: r.config.alerts, series: {}, tampered: [], agreement: null } satisfies RunInput]),
  );
  if (runIds.length > 0) {
    const idList = sql.join(
      runIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    const window = Math.max(...runRows.map((r) => r.config.alerts?.thresholds.rewardWindow ?? thresholds.rewardWindow)) + 1;
    // One index probe per (run, metric): metric_samples_run_name_idx is (run_id, name, step).
    const series = await db.execute<{ run_id: string; name: RlMetric; value: number }>(sql`
      select r.id as run_id, n.name, m.value
      from unnest(array[${idList}]::uuid[]) as r(id)
      cross join unnest(array[${sql.join(
        seriesMetrics.map((m) => sql`${m}`),
        sql`, `,
      )}]::text[]) as n(name)
      cross join lateral (
        select step, value from metric_samples
        where run_id = r.id and name = n.name and source = ${METRIC_SOURCES.rl} and labels = '{}'::jsonb and step is not null
        order by step desc limit ${window}) m
      order by r.id, n.name, m.step asc`);
    for (const s of series) {
      const run = runs.get(s.run_id)!;
      (run.series[s.name] ??= []).push(Number(s.value));
    }
    const tampered = await db.execute<{ run_id: string; episode_id: string; iteration: number }>(sql`
      select e.run_id, e.id as episode_id, e.iteration from rewards r join episodes e on e.id = r.episode_id
      where e.run_id in (${idList}) and (r.components->>'tampered')::float > 0 and r.created_at > ${iso(new Date(now.getTime() - TAMPER_WINDOW_MS))}
      order by r.created_at desc limit 500`);
    for (const t of tampered) runs.get(t.run_id)!.tampered.push({ episodeId: t.episode_id, iteration: t.iteration });
    // Cohen's kappa over each run's double-reviewed episodes (both verdicts in), pooled over reviewers
    const pairs = await db.execute<{ run_id: string; va: Verdict; vb: Verdict }>(sql`
      select x.run_id, x.verdict as va, y.verdict as vb
      from reviews x join reviews y on y.episode_id = x.episode_id and y.slot > x.slot
      where x.run_id in (${idList}) and x.verdict is not null and y.verdict is not null`);
    const byRun = new Map<string, [Verdict, Verdict][]>();
    for (const p of pairs) byRun.set(p.run_id, [...(byRun.get(p.run_id) ?? []), [p.va, p.vb]]);
    for (const [runId, items] of byRun) runs.get(runId)!.agreement = { kappa: cohensKappa(items), pairs: items.length };
  }

  // A lost worker is an alert until a worker of the same kind on its node runs again (the supervisor replaced it).
  const workers = await db.execute<{ id: string; kind: string; node: string; status: string }>(sql`
    select w.id, w.kind, coalesce(w.node, w.hostname) as node, w.status from workers w
    where w.status = 'running'
       or (w.status = 'lost' and w.heartbeat_at > ${iso(new Date(now.getTime() - LOST_WINDOW_MS))}
           and not exists (select 1 from workers r where r.status = 'running' and r.kind = w.kind
                           and coalesce(r.node, r.hostname) = coalesce(w.node, w.hostname) and r.started_at > w.heartbeat_at))`);

  const nodeRows = await db.execute<{ node: string; name: string; value: number }>(sql`
    select distinct on (labels->>'node', name) labels->>'node' as node, name, value from metric_samples
    where source = ${METRIC_SOURCES.resources} and run_id is null
      and name in ('node_memory_used_mb', 'node_memory_total_mb', 'node_disk_used_mb', 'node_disk_total_mb')
      and at > ${iso(new Date(now.getTime() - NODE_SAMPLE_MS))}
    order by labels->>'node', name, at desc`);
  const nodes = new Map<string, AlertInputs['nodes'][number]>();
  const field = {
    node_memory_used_mb: 'memoryUsedMb',
    node_memory_total_mb: 'memoryTotalMb',
    node_disk_used_mb: 'diskUsedMb',
    node_disk_total_mb: 'diskTotalMb',
  } as const;
  for (const r of nodeRows) {
    const n = nodes.get(r.node) ?? { node: r.node };
    n[field[r.name as keyof typeof field]] = Number(r.value);
    nodes.set(r.node, n);
  }

  const environments = await db.execute<{ name: string; quarantine_reason: string | null }>(
    sql`select name, quarantine_reason from environments where quarantined_at is not null order by name limit 200`,
  );

  const queues = await db.execute<{ tier: string; queued: number; oldest_wait_s: number }>(sql`
    select tier, count(*)::int as queued, extract(epoch from (${iso(now)}::timestamptz - min(queued_at)))::float as oldest_wait_s
    from jobs where state = 'queued' and tier is not null group by tier`);

  const since = iso(new Date(now.getTime() - SANDBOX_WINDOW_MS));
  const mismatches = await db.execute<{ environment: string; count: number }>(sql`
    select coalesce(e.name, a.details->>'envHash', 'unknown') as environment, count(*)::int as count
    from audit_log a left join environments e on e.content_hash = a.details->>'envHash'
    where a.action = 'sandbox.exec' and a.at > ${since} and a.details->>'status' = 'env_mismatch'
    group by 1 order by 2 desc limit 50`);
  const [denials] = await db.execute<{ n: number }>(sql`
    select coalesce(sum(
      (select count(*) from jsonb_array_elements(case when jsonb_typeof(a.details->'egress') = 'array' then a.details->'egress' else '[]'::jsonb end) x
       where x->>'allowed' = 'false')
      + case when a.details->>'signal' = 'SIGSYS' then 1 else 0 end), 0)::int as n
    from audit_log a where a.action = 'sandbox.exec' and a.at > ${since}`);

  return {
    runs: [...runs.values()],
    workers: workers.map((w) => ({ id: w.id, kind: w.kind, node: w.node, status: w.status })),
    nodes: [...nodes.values()],
    environments: environments.map((e) => ({ name: e.name, quarantined: true, quarantineReason: e.quarantine_reason })),
    queues: queues.map((q) => ({ tier: q.tier, queued: q.queued, oldestWaitS: Number(q.oldest_wait_s) })),
    sandboxes: { envMismatches: mismatches.map((m) => ({ environment: m.environment, count: m.count })), securityDenials: denials?.n ?? 0 },
    thresholds,
  };
}
