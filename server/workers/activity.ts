import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { LIVE_RUN_STATUSES } from '@/core/run-status';
import { SANDBOX_STATE_CLASSES, sandboxClass } from '@/core/resources';

/**
 * What the cluster is doing now, read live from the tables the work itself changes (`jobs`
 * leases, `sandboxes` states, `runs` statuses). `/resources` (`resources.overview`),
 * `/api/metrics` and `/workers` (`workers.list`) all take their busy sandboxes, running jobs
 * and active runs from here, so the pages agree; the metrics worker's samples are history
 * (charts), never the "now" figure.
 */

/** How many rows of each list are returned (the totals are counted, not taken from the lists). */
const LIST_LIMIT = 2000;

export type RunningJob = {
  id: number;
  queue: string;
  tier: string;
  runId: string | null;
  runName: string | null;
  /** From the payload of episode jobs (`rl.episode`), when it is a uuid. */
  episodeId: string | null;
  /** The worker holding the lease. */
  owner: string | null;
  startedAt: Date | null;
  attempts: number;
};

export type BusySandbox = { id: string; workerId: string | null; runtime: string; episodeId: string | null; runId: string | null; since: Date };

export type ActiveRun = { id: string; name: string; status: string; jobsRunning: number; busySandboxes: number };

export type QueueActivity = { tier: string; queue: string; queued: number; running: number };

export type ClusterActivity = {
  /** When the snapshot was read (database time). */
  at: Date;
  totals: { busySandboxes: number; runningJobs: number; activeRuns: number };
  sandboxes: { busy: number; idle: number; warm: number };
  /** Queued and running jobs per tier and queue. */
  queues: QueueActivity[];
  runs: ActiveRun[];
  /** The running jobs, oldest first (at most LIST_LIMIT). */
  jobs: RunningJob[];
  /** The busy sandboxes, oldest first (at most LIST_LIMIT). */
  busySandboxes: BusySandbox[];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const busyStates = [...SANDBOX_STATE_CLASSES.busy];

/** What the queries below need of a database or a transaction. */
type Query = Pick<Db, 'execute'>;

/** Running jobs (all, or those whose lease `owner` holds), oldest first. */
export async function listRunningJobs(q: Query, owner?: string): Promise<RunningJob[]> {
  const rows = await q.execute<{
    id: number;
    queue: string;
    tier: string;
    run_id: string | null;
    run_name: string | null;
    episode_id: string | null;
    lease_owner: string | null;
    started_at: string | null;
    attempts: number;
  }>(sql`
    select j.id::float8 as id, j.queue, coalesce(j.tier, r.config->>'queue', 'standard') as tier, j.run_id, r.name as run_name,
      j.payload->>'episodeId' as episode_id, j.lease_owner, j.started_at, j.attempts
    from jobs j left join runs r on r.id = j.run_id
    where j.state = 'running' ${owner === undefined ? sql`` : sql`and j.lease_owner = ${owner}`}
    order by j.started_at nulls last, j.id limit ${LIST_LIMIT}`);
  return rows.map((j) => ({
    id: j.id,
    queue: j.queue,
    tier: j.tier,
    runId: j.run_id,
    runName: j.run_name,
    episodeId: j.episode_id && UUID.test(j.episode_id) ? j.episode_id : null,
    owner: j.lease_owner,
    startedAt: j.started_at ? new Date(j.started_at) : null,
    attempts: j.attempts,
  }));
}

/** Busy sandboxes (all, or those of one worker), oldest first. */
export async function listBusySandboxes(q: Query, workerId?: string): Promise<BusySandbox[]> {
  const rows = await q.execute<{ id: string; worker_id: string | null; runtime: string; episode_id: string | null; run_id: string | null; since: string }>(sql`
    select s.id, s.worker_id, s.runtime, s.episode_id, e.run_id, s.updated_at as since
    from sandboxes s left join episodes e on e.id = s.episode_id
    where s.destroyed_at is null and s.state in ${busyStates} ${workerId === undefined ? sql`` : sql`and s.worker_id = ${workerId}`}
    order by s.updated_at, s.id limit ${LIST_LIMIT}`);
  return rows.map((s) => ({ id: s.id, workerId: s.worker_id, runtime: s.runtime, episodeId: s.episode_id, runId: s.run_id, since: new Date(s.since) }));
}

/**
 * One consistent snapshot (a read-only repeatable-read transaction): the totals, the
 * per-queue and per-run figures and the lists are read from the same state of the tables,
 * so within one answer they add up.
 */
export async function clusterActivity(db: Db): Promise<ClusterActivity> {
  return db.transaction(
    async (tx) => {
      const [clock] = await tx.execute<{ now: string }>(sql`select now() as now`);
      const sandboxStates = await tx.execute<{ state: string; n: number }>(
        sql`select state, count(*)::int as n from sandboxes where destroyed_at is null group by state`,
      );
      const sandboxes = { busy: 0, idle: 0, warm: 0 };
      for (const r of sandboxStates) {
        const k = sandboxClass(r.state);
        if (k) sandboxes[k] += r.n;
      }
      const queueRows = await tx.execute<{ queue: string; tier: string; state: string; n: number }>(sql`
        select j.queue, coalesce(j.tier, r.config->>'queue', 'standard') as tier, j.state::text as state, count(*)::int as n
        from jobs j left join runs r on r.id = j.run_id
        where j.state in ('queued', 'running') group by 1, 2, 3`);
      const queues = new Map<string, QueueActivity>();
      for (const r of queueRows) {
        const key = `${r.tier}\n${r.queue}`;
        const q = queues.get(key) ?? { tier: r.tier, queue: r.queue, queued: 0, running: 0 };
        if (r.state === 'queued') q.queued += r.n;
        else q.running += r.n;
        queues.set(key, q);
      }
      const jobs = await listRunningJobs(tx);
      const busy = await listBusySandboxes(tx);
      const runs = await tx.execute<{ id: string; name: string; status: string; jobs_running: number; busy_sandboxes: number }>(sql`
        select r.id, r.name, r.status::text as status,
          (select count(*)::int from jobs j where j.run_id = r.id and j.state = 'running') as jobs_running,
          (select count(*)::int from sandboxes s join episodes e on e.id = s.episode_id
            where e.run_id = r.id and s.destroyed_at is null and s.state in ${busyStates}) as busy_sandboxes
        from runs r where r.status in ${[...LIVE_RUN_STATUSES]} order by r.created_at desc`);
      const queueList = [...queues.values()].sort((a, b) => a.tier.localeCompare(b.tier) || a.queue.localeCompare(b.queue));
      return {
        at: new Date(clock!.now),
        totals: { busySandboxes: sandboxes.busy, runningJobs: queueList.reduce((n, q) => n + q.running, 0), activeRuns: runs.length },
        sandboxes,
        queues: queueList,
        runs: runs.map((r) => ({ id: r.id, name: r.name, status: r.status, jobsRunning: r.jobs_running, busySandboxes: r.busy_sandboxes })),
        jobs,
        busySandboxes: busy,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
