import os from 'node:os';
import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import type { NodeCapacity } from '@/core/resources';
import { workers, type WorkerLogLine } from '@/db/schema';
import { WORKER_KINDS } from '@/core/queues';
import { probeRuntimes } from '@/lib/sandbox/runtimes/available-runtimes';
import { detectCapacity } from '@/lib/scheduler/host-capacity';
import { dataDir } from '@/db/open-database';
import type { ProcessStats } from './process-stats';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import type { PhaseSeconds } from '@/core/compute';

export type WorkerStatus = 'running' | 'stopped' | 'failed' | 'lost';

/** Worker kinds that run sandboxes, and so report which runtimes work on their host. */
const SANDBOX_HOST_KINDS: readonly string[] = [WORKER_KINDS.jobs, WORKER_KINDS.sandbox];

/**
 * Register this process as a worker of `kind`; the id is unique per process start. Workers
 * that run sandboxes record the runtimes that work here, which launches check run configs
 * against (server/runs/launch-isolation.ts).
 */
export async function registerWorker(db: Db, kind: string, capacity: NodeCapacity = detectCapacity(dataDir())): Promise<string> {
  if (SANDBOX_HOST_KINDS.includes(kind) && !capacity.runtimes) {
    capacity = { ...capacity, runtimes: probeRuntimes(runtimeOptions(settings())).flatMap((r) => (r.available ? [r.name] : [])) };
  }
  const hostname = os.hostname();
  const id = `${kind}-${hostname}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  await db.insert(workers).values({ id, kind, hostname, pid: process.pid, capacity, status: 'running' });
  return id;
}

/** What a heartbeat reports besides being alive: the process's own use and, when they changed, its newest log lines. */
export type HeartbeatReport = ProcessStats & {
  logs?: WorkerLogLine[];
  /** this process's CPU-seconds so far per compute phase of its jobs (lib/compute/meter.ts) */
  cpuPhaseSeconds?: PhaseSeconds;
};

/**
 * Record that the worker is alive, with what it reports. A worker that maintenance wrongly
 * gave up on (a long stall) comes back as running; a stopped one stays stopped.
 */
export async function heartbeatWorker(db: Db, id: string, report?: HeartbeatReport): Promise<boolean> {
  const rows = await db
    .update(workers)
    .set({
      heartbeatAt: sql`now()`,
      status: 'running',
      stoppedAt: null,
      ...(report && { cpuPercent: report.cpuPercent, rssMb: report.rssMb }),
      ...(report?.logs && { recentLogs: report.logs }),
      ...(report?.cpuPhaseSeconds && { cpuPhaseSeconds: report.cpuPhaseSeconds }),
    })
    .where(and(eq(workers.id, id), inArray(workers.status, ['running', 'lost'])))
    .returning({ id: workers.id });
  return rows.length > 0;
}

/** Mark the registration ended; `logs` keeps the worker's last lines (why it failed) for the console. */
export async function markWorkerStopped(
  db: Db,
  id: string,
  status: Exclude<WorkerStatus, 'running' | 'lost'> = 'stopped',
  logs?: WorkerLogLine[],
): Promise<void> {
  await db
    .update(workers)
    .set({ status, stoppedAt: sql`now()`, ...(logs && { recentLogs: logs }) })
    .where(eq(workers.id, id));
}

/** Workers whose heartbeat is older than `staleMs` are `lost` (killed, crashed, partitioned). */
export async function markLostWorkers(db: Db, staleMs: number): Promise<{ id: string; kind: string; pid: number }[]> {
  return db
    .update(workers)
    .set({ status: 'lost', stoppedAt: sql`now()` })
    .where(and(eq(workers.status, 'running'), lt(workers.heartbeatAt, sql`now() - ${staleMs} * interval '1 millisecond'`)))
    .returning({ id: workers.id, kind: workers.kind, pid: workers.pid });
}

/** Forget registrations that ended (stopped, failed, lost) more than `olderThanMs` ago. */
export async function pruneEndedWorkers(db: Db, olderThanMs: number): Promise<number> {
  const rows = await db
    .delete(workers)
    .where(
      and(
        inArray(workers.status, ['stopped', 'failed', 'lost']),
        isNotNull(workers.stoppedAt),
        lt(workers.stoppedAt, sql`now() - ${olderThanMs} * interval '1 millisecond'`),
      ),
    )
    .returning({ id: workers.id });
  return rows.length;
}
