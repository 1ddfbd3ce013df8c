import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { METRIC_SOURCES, RL_ITERATION_METRICS, type RlIterationMetric } from '@/core/metrics';
import { SCHEDULING_TIERS } from '@/core/queues';
import { LIVE_RUN_STATUSES } from '@/core/run-status';
import { cohensKappa, type Verdict } from '@/server/reviews/kappa';

/**
 * What Prometheus alert rules need beyond the resource figures (deploy/prometheus/alerts.yml):
 * each run's newest RL metrics, tampered episodes and reviewer agreement; lost workers and
 * nodes; quarantined environments; the oldest queued job's wait per tier. Read-only, one query
 * per figure, each bounded: runs that are live or ended in the last hour, workers running or
 * ended in the last hour.
 */

/** Runs whose figures are exposed: live (queued, running, paused) or ended within this long. */
export const ENDED_RUN_WINDOW_MS = 3_600_000;
/** Worker registrations that ended (lost, stopped, failed) within this long still count. */
export const ENDED_WORKER_WINDOW_MS = 3_600_000;
/** At most this many worker registrations per scrape (newest first). */
const WORKER_LIMIT = 2000;

export type RunAlertFigures = {
  run: string;
  /** The newest value (highest step) of each unlabelled per-iteration RL metric the run has. */
  rl: Partial<Record<RlIterationMetric, number>>;
  /** Scored episodes whose grader caught tampering (`rewards.components.tampered`). */
  tamperedEpisodes: number;
  /** Double-reviewed episodes where both reviews have a verdict, and Cohen's kappa over them (null without any). */
  reviewPairs: number;
  reviewKappa: number | null;
};

export type AlertFigures = {
  runs: RunAlertFigures[];
  /** Running workers (up) and lost ones that nothing replaced (down). */
  workers: { worker: string; kind: string; node: string; up: boolean }[];
  /** Nodes with a running worker (up), or whose newest ended worker was lost and none runs (down). */
  nodes: { node: string; up: boolean }[];
  environments: { environment: string; quarantined: boolean }[];
  /** Seconds the oldest claimable queued job of each tier has waited (0 when none waits). */
  queueWait: { tier: string; oldestSeconds: number }[];
};

export async function alertFigures(db: Db): Promise<AlertFigures> {
  return db.transaction(
    async (tx) => {
      const scope = sql`(select id from runs where status in ${[...LIVE_RUN_STATUSES]}
        or coalesce(finished_at, updated_at) > now() - ${ENDED_RUN_WINDOW_MS} * interval '1 millisecond')`;
      const names = sql.join(
        RL_ITERATION_METRICS.map((n) => sql`${n}`),
        sql`, `,
      );
      // One index probe per (run, metric): metric_samples_run_name_idx is (run_id, name, step).
      const rl = await tx.execute<{ run: string; name: RlIterationMetric; value: number }>(sql`
        select s.id as run, n.name, m.value
        from ${scope} s cross join unnest(array[${names}]::text[]) as n(name)
        cross join lateral (
          select value from metric_samples
          where run_id = s.id and name = n.name and step is not null and source = ${METRIC_SOURCES.rl} and labels = '{}'::jsonb
          order by step desc limit 1) m`);
      const runs = await tx.execute<{ run: string; tampered: number }>(sql`
        select s.id as run,
          (select count(*)::int from episodes e join rewards w on w.episode_id = e.id
            where e.run_id = s.id and w.components @> '{"tampered": 1}'::jsonb) as tampered
        from ${scope} s order by s.id`);
      const pairs = await tx.execute<{ run: string; va: Verdict; vb: Verdict }>(sql`
        select x.run_id as run, x.verdict as va, y.verdict as vb
        from reviews x join reviews y on y.episode_id = x.episode_id and y.slot > x.slot
        where x.run_id in ${scope} and x.verdict is not null and y.verdict is not null`);
      const workerRows = await tx.execute<{ id: string; kind: string; node: string; status: string; stopped_at: string | null; replaced: boolean }>(sql`
        select w.id, w.kind, coalesce(w.node, w.hostname) as node, w.status, w.stopped_at,
          -- a supervisor restarted it: a running worker of its kind on its node started after its last heartbeat
          (w.status = 'lost' and exists (select 1 from workers r where r.status = 'running' and r.kind = w.kind
            and coalesce(r.node, r.hostname) = coalesce(w.node, w.hostname) and r.started_at > w.heartbeat_at)) as replaced
        from workers w
        where w.status = 'running' or w.stopped_at > now() - ${ENDED_WORKER_WINDOW_MS} * interval '1 millisecond'
        order by w.started_at desc limit ${WORKER_LIMIT}`);
      const envs = await tx.execute<{ name: string; quarantined: boolean }>(
        sql`select name, quarantined_at is not null as quarantined from environments order by name`,
      );
      const waits = await tx.execute<{ tier: string; oldest: number }>(sql`
        select coalesce(j.tier, r.config->>'queue', 'standard') as tier,
          extract(epoch from now() - min(greatest(j.queued_at, j.run_after)))::float8 as oldest
        from jobs j left join runs r on r.id = j.run_id
        where j.state = 'queued' and j.run_after <= now() group by 1`);

      const rlByRun = new Map<string, Partial<Record<RlIterationMetric, number>>>();
      for (const r of rl) rlByRun.set(r.run, { ...rlByRun.get(r.run), [r.name]: r.value });
      const pairsByRun = new Map<string, [Verdict, Verdict][]>();
      for (const p of pairs) pairsByRun.set(p.run, [...(pairsByRun.get(p.run) ?? []), [p.va, p.vb]]);

      const nodes = new Map<string, { running: boolean; lastEnded: { at: number; lost: boolean } | null }>();
      const workers: AlertFigures['workers'] = [];
      for (const w of workerRows) {
        const n = nodes.get(w.node) ?? { running: false, lastEnded: null };
        if (w.status === 'running') n.running = true;
        else if (w.stopped_at) {
          const at = new Date(w.stopped_at).getTime();
          if (!n.lastEnded || at > n.lastEnded.at) n.lastEnded = { at, lost: w.status === 'lost' };
        }
        nodes.set(w.node, n);
        if (w.status === 'running') workers.push({ worker: w.id, kind: w.kind, node: w.node, up: true });
        else if (w.status === 'lost' && !w.replaced) workers.push({ worker: w.id, kind: w.kind, node: w.node, up: false });
      }

      const wait = new Map<string, number>(SCHEDULING_TIERS.map((t) => [t, 0]));
      for (const w of waits) wait.set(w.tier, Math.max(0, w.oldest));

      return {
        runs: runs.map((r) => {
          const items = pairsByRun.get(r.run) ?? [];
          return { run: r.run, rl: rlByRun.get(r.run) ?? {}, tamperedEpisodes: r.tampered, reviewPairs: items.length, reviewKappa: cohensKappa(items) };
        }),
        workers,
        nodes: [...nodes.entries()]
          .flatMap(([node, n]) => (n.running ? [{ node, up: true }] : n.lastEnded?.lost ? [{ node, up: false }] : []))
          .sort((a, b) => a.node.localeCompare(b.node)),
        environments: envs.map((e) => ({ environment: e.name, quarantined: e.quarantined })),
        queueWait: [...wait.entries()].map(([tier, oldestSeconds]) => ({ tier, oldestSeconds })).sort((a, b) => a.tier.localeCompare(b.tier)),
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
