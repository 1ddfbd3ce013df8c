import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import type { NodeCapacity } from '@/core/resources';
import { workers } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { cpuParts, readClusterSnapshot, type ClusterSnapshot } from '@/server/resources/service';
import { listBusySandboxes, listRunningJobs, type RunningJob } from './activity';

/** Registrations listed at most (newest heartbeat first). */
const WORKERS_LIMIT = 500;

export const workersListInput = z
  .object({ includeEnded: z.boolean().default(false) })
  .strict()
  .default({ includeEnded: false });
export const workerIdInput = z.object({ id: z.string().trim().min(1, 'a worker id is required').max(200) }).strict();

// Every column but the log lines: the list stays small; the detail reads them.
const listColumns = {
  id: workers.id,
  kind: workers.kind,
  hostname: workers.hostname,
  node: workers.node,
  pid: workers.pid,
  capacity: workers.capacity,
  status: workers.status,
  startedAt: workers.startedAt,
  heartbeatAt: workers.heartbeatAt,
  stoppedAt: workers.stoppedAt,
  cpuPercent: workers.cpuPercent,
  rssMb: workers.rssMb,
};

type JobView = Omit<RunningJob, 'owner'>;
const jobView = ({ owner: _owner, ...j }: RunningJob): JobView => j;

/**
 * `/workers`: the registrations grouped by host (node → workers → jobs, as in the Ray
 * dashboard), each worker with its own CPU and memory, the jobs it holds the lease of and the
 * sandboxes it keeps busy; each host with its totals and, when the metrics worker sampled it,
 * the node's own CPU and memory. `activity` is the same snapshot `/resources` shows.
 */
export async function workersOverview(db: Db, input: z.infer<typeof workersListInput>, snapshot?: ClusterSnapshot) {
  const [{ activity, figures }, rows] = await Promise.all([
    snapshot ?? readClusterSnapshot(db),
    db
      .select(listColumns)
      .from(workers)
      .where(input.includeEnded ? undefined : eq(workers.status, 'running'))
      .orderBy(desc(workers.heartbeatAt))
      .limit(WORKERS_LIMIT),
  ]);
  const jobsOf = groupBy(activity.jobs, (j) => j.owner);
  const sandboxesOf = groupBy(activity.busySandboxes, (s) => s.workerId);
  const nodeFigure = (name: string, host: string) => figures.find((f) => f.name === name && f.labels.node === host && !f.labels.gpu)?.value ?? null;

  const listed = rows.map((w) => ({
    ...w,
    jobs: (jobsOf.get(w.id) ?? []).map(jobView),
    busySandboxes: (sandboxesOf.get(w.id) ?? []).length,
  }));
  const shown = new Set(listed.map((w) => w.id));
  const hosts = [...groupBy(listed, (w) => w.hostname).entries()]
    .map(([hostname, ws]) => {
      const running = ws.filter((w) => w.status === 'running');
      // The node's capacity as its newest live registration recorded it (what the metrics worker sums too).
      const capacity: NodeCapacity | null = (running[0] ?? ws[0])?.capacity ?? null;
      return {
        hostname,
        /** Scheduler node names its job workers joined (usually the hostname). */
        nodes: [...new Set(ws.flatMap((w) => (w.node ? [w.node] : [])))].sort(),
        capacity,
        workersRunning: running.length,
        workersEnded: ws.length - running.length,
        /** Sum over its running workers' own figures (each % of one core). */
        cpuPercent: sum(running.map((w) => w.cpuPercent)),
        rssMb: sum(running.map((w) => w.rssMb)),
        runningJobs: ws.reduce((n, w) => n + w.jobs.length, 0),
        busySandboxes: ws.reduce((n, w) => n + w.busySandboxes, 0),
        /** The whole node as the metrics worker last sampled it (null when it did not in the last minute). */
        node: {
          cpuUtilisation: nodeFigure('node_cpu_utilisation', hostname),
          memoryUsedMb: nodeFigure('node_memory_used_mb', hostname),
          memoryTotalMb: nodeFigure('node_memory_total_mb', hostname),
          /** its CPU by what uses it, as /resources stacks it (core/compute.ts) */
          cpuParts: cpuParts(figures, hostname),
        },
        workers: ws.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)),
      };
    })
    .sort((a, b) => a.hostname.localeCompare(b.hostname));
  return {
    activity: { at: activity.at, totals: activity.totals },
    /** the node figures' newest sample time (the same snapshot /resources reads) */
    sampledAt: figures.reduce<Date | null>((a, f) => (!a || f.at > a ? f.at : a), null),
    hosts,
    /** Running jobs and busy sandboxes held by workers not listed (stopped or lost, whose lease has not expired yet). */
    elsewhere: {
      runningJobs: activity.jobs.filter((j) => !j.owner || !shown.has(j.owner)).length,
      busySandboxes: activity.busySandboxes.filter((s) => !s.workerId || !shown.has(s.workerId)).length,
    },
  };
}

/** One worker for its detail page: its registration, own CPU and memory, jobs now, busy sandboxes and recent log lines. */
export async function workerDetail(db: Db, id: string) {
  const [row] = await db.select().from(workers).where(eq(workers.id, id)).limit(1);
  if (!row) throw new DomainError('NOT_FOUND', `no worker ${id} (registrations that ended are forgotten after a while)`);
  const [jobs, busySandboxes] = await Promise.all([listRunningJobs(db, id), listBusySandboxes(db, id)]);
  const siblings = await db
    .select({ id: workers.id })
    .from(workers)
    .where(and(eq(workers.hostname, row.hostname), eq(workers.status, 'running')));
  return {
    ...row,
    /** Running workers on the same host (itself included), for the breadcrumb's count. */
    hostWorkersRunning: siblings.length,
    jobs: jobs.map(jobView),
    busySandboxes: busySandboxes.map(({ workerId: _w, ...sb }) => sb),
  };
}

function groupBy<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

function sum(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}
