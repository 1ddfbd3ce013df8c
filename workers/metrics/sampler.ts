import os from 'node:os';
import { sql } from 'drizzle-orm';
import { LIVE_RUN_STATUSES } from '@/core/run-status';
import { METRIC_SOURCES } from '@/core/metrics';
import { RESOURCE_METRIC_LABELS } from '@/core/resources';
import type { Db } from '@/db/client';
import { metricSamples } from '@/db/schema';
import { cpuUtilisation, readCpuTimes, readDisk, readGpus, readMemory, type CpuTimes, type GpuReading } from './node-stats';
import { sandboxClass } from '@/core/resources';
import { nodeCpuBreakdown } from '@/core/compute';
import { cpuPartsSince, newCpuPartsState, readProcesses, type CpuPartsState, type NodeWorker, type ProcTimes } from './cpu-parts';

type Point = { name: string; value: number; labels: Record<string, string> };

/** Node figures from /proc and nvidia-smi; `prev` carries the CPU reading between calls. */
export function sampleNode(state: { prev?: CpuTimes }, gpus: () => GpuReading[] | null = readGpus, node = os.hostname(), diskPath = process.cwd()): Point[] {
  const now = readCpuTimes();
  const points: Point[] = [];
  const cpu = state.prev ? cpuUtilisation(state.prev, now) : null;
  state.prev = now;
  if (cpu !== null) points.push({ name: 'node_cpu_utilisation', value: cpu, labels: { node } });
  points.push({ name: 'node_cpus', value: os.availableParallelism(), labels: { node } });
  const mem = readMemory();
  points.push({ name: 'node_memory_used_mb', value: mem.usedMb, labels: { node } }, { name: 'node_memory_total_mb', value: mem.totalMb, labels: { node } });
  // the filesystem holding the data directory: sandboxes, caches, the embedded database
  const disk = readDisk(diskPath);
  if (disk)
    points.push({ name: 'node_disk_used_mb', value: disk.usedMb, labels: { node } }, { name: 'node_disk_total_mb', value: disk.totalMb, labels: { node } });
  const g = gpus();
  points.push({ name: 'node_gpu_present', value: g ? 1 : 0, labels: { node } });
  for (const x of g ?? []) {
    const labels = { node, gpu: String(x.index) };
    points.push(
      { name: 'node_gpu_utilisation', value: x.utilisation, labels },
      { name: 'node_gpu_memory_used_mb', value: x.memoryUsedMb, labels },
      { name: 'node_gpu_memory_total_mb', value: x.memoryTotalMb, labels },
    );
  }
  return points;
}

/**
 * This node's CPU stacked into its parts (core/compute.ts NODE_CPU_PARTS) since the previous call:
 * `node_cpu_part{node, part}`, each a fraction of the node's CPUs, adding up to its utilisation.
 * The first call only takes the readings the next one needs.
 */
export async function sampleNodeCpuParts(
  db: Db,
  state: { cpu?: CpuTimes; parts?: CpuPartsState },
  node = os.hostname(),
  read: { cpu?: () => CpuTimes; procs?: () => ProcTimes[] } = {},
): Promise<Point[]> {
  const nodeWorkers = await db.execute<{ id: string; kind: string; pid: number; cpu_phase_seconds: NodeWorker['cpuPhaseSeconds'] }>(
    sql`select id, kind, pid, cpu_phase_seconds from workers where hostname = ${node} and status = 'running'`,
  );
  const cpu = (read.cpu ?? readCpuTimes)();
  const procs = (read.procs ?? readProcesses)();
  const parts = cpuPartsSince(
    (state.parts ??= newCpuPartsState()),
    procs,
    nodeWorkers.map((w) => ({ id: w.id, kind: w.kind, pid: w.pid, cpuPhaseSeconds: w.cpu_phase_seconds ?? {} })),
  );
  const prev = state.cpu;
  state.cpu = cpu;
  if (!prev) return [];
  // /proc/stat counts in clock ticks (USER_HZ, 100 a second) over all CPUs
  const breakdown = nodeCpuBreakdown({ busy: (cpu.busy - prev.busy) / 100, total: (cpu.total - prev.total) / 100, parts });
  if (!breakdown) return [];
  return Object.entries(breakdown).map(([part, value]) => ({ name: 'node_cpu_part', value, labels: { node, part } }));
}

/** Cluster figures from the database: sandboxes, queues per tier, per-run usage, capacity, and the reserve (`reserveFraction` of capacity: CRUCIBLE_RESERVE_FRACTION). */
export async function sampleCluster(db: Db, reserveFraction: number): Promise<Point[]> {
  const points: Point[] = [];
  const sandboxes = await db.execute<{ state: string; n: number }>(
    sql`select state, count(*)::int as n from sandboxes where destroyed_at is null group by state`,
  );
  const byState: Record<string, number> = { busy: 0, idle: 0, warm: 0 };
  for (const r of sandboxes) {
    const k = sandboxClass(r.state);
    if (k) byState[k] = (byState[k] ?? 0) + r.n;
  }
  for (const [state, n] of Object.entries(byState)) points.push({ name: 'sandboxes', value: n, labels: { state } });

  const queues = await db.execute<{ queue: string; tier: string; state: string; n: number }>(sql`
    select j.queue, coalesce(j.tier, r.config->>'queue', 'standard') as tier, j.state::text as state, count(*)::int as n
    from jobs j left join runs r on r.id = j.run_id
    where j.state in ('queued', 'running') group by 1, 2, 3`);
  for (const r of queues) {
    points.push({ name: r.state === 'queued' ? 'queue_depth' : 'jobs_running', value: r.n, labels: { queue: r.queue, tier: r.tier } });
  }

  const perRun = await db.execute<{ run_id: string; running: number; sandboxes: number }>(sql`
    select r.id as run_id,
      (select count(*)::int from jobs j where j.run_id = r.id and j.state = 'running') as running,
      (select count(*)::int from sandboxes s join episodes e on e.id = s.episode_id where e.run_id = r.id and s.destroyed_at is null) as sandboxes
    from runs r where r.status in ${[...LIVE_RUN_STATUSES]}`);
  for (const r of perRun) {
    points.push(
      { name: 'run_jobs_running', value: r.running, labels: { run: r.run_id } },
      { name: 'run_sandboxes', value: r.sandboxes, labels: { run: r.run_id } },
    );
  }

  const cap = await db.execute<{ cpus: number; memory_mb: number; gpus: number }>(sql`
    select coalesce(sum(c.cpus), 0)::float8 as cpus, coalesce(sum(c.mem), 0)::float8 as memory_mb, coalesce(sum(c.gpus), 0)::float8 as gpus
    from (select distinct on (hostname) hostname, (capacity->>'cpus')::float8 as cpus, (capacity->>'memoryMb')::float8 as mem, (capacity->>'gpuCount')::float8 as gpus
          from workers where status = 'running' order by hostname, heartbeat_at desc) c`);
  const c = cap[0] ?? { cpus: 0, memory_mb: 0, gpus: 0 };
  for (const [resource, total] of [
    [RESOURCE_METRIC_LABELS.cpu, c.cpus],
    [RESOURCE_METRIC_LABELS.memoryMb, c.memory_mb],
    [RESOURCE_METRIC_LABELS.gpu, c.gpus],
  ] as const) {
    points.push({ name: 'capacity', value: total, labels: { resource } }, { name: 'reserve', value: total * reserveFraction, labels: { resource } });
  }
  return points;
}

export async function storeSamples(db: Db, points: Point[], at = new Date()): Promise<number> {
  if (points.length === 0) return 0;
  await db.insert(metricSamples).values(points.map((p) => ({ source: METRIC_SOURCES.resources, name: p.name, value: p.value, labels: p.labels, at })));
  return points.length;
}
