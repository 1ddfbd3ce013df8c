import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { clusterActivity, type ClusterActivity } from '@/server/workers/activity';
import { computeByRun } from '@/server/compute/service';
import { NODE_CPU_PARTS, type NodeCpuPart } from '@/core/compute';
import { METRIC_SOURCES, RESOURCE_ROLLUPS, RESOURCE_WINDOW_MS as WINDOW_MS, RESOURCE_WINDOWS, type ResourceWindow } from '@/core/metrics';

export const windowSchema = z.enum(RESOURCE_WINDOWS);
export type SeriesWindow = ResourceWindow;

/** The finest stored resolution that still covers the window (raw ≤1 h, 1-minute ≤24 h, else 10-minute). */
export function sourceForWindow(w: SeriesWindow): string {
  const ms = WINDOW_MS[w];
  return (RESOURCE_ROLLUPS.find((t) => t.keepMs >= ms) ?? RESOURCE_ROLLUPS[RESOURCE_ROLLUPS.length - 1]!).source;
}

export type Figure = { name: string; value: number; labels: Record<string, string>; at: Date };

/** The newest raw sample of every (name, labels) seen in the last `freshMs` (the sampler writes every 5 s). */
export async function currentFigures(db: Db, freshMs = 60_000): Promise<Figure[]> {
  const since = new Date(Date.now() - freshMs).toISOString();
  const rows = await db.execute<{ name: string; value: number; labels: Record<string, string>; at: string }>(sql`
    select distinct on (name, labels) name, value, labels, at from metric_samples
    where source = ${METRIC_SOURCES.resources} and at >= ${since}::timestamptz
    order by name, labels, at desc`);
  return rows.map((r) => ({ name: r.name, value: r.value, labels: r.labels, at: new Date(r.at) }));
}

/**
 * What the cluster is doing now, read once: the live activity (busy sandboxes, running jobs,
 * active runs) and the newest samples (node CPU and its parts, memory, quota). `/resources`,
 * `/workers` and `/api/metrics` build their figures from one of these, so side by side they agree.
 */
export type ClusterSnapshot = { activity: ClusterActivity; figures: Figure[] };

export async function readClusterSnapshot(db: Db): Promise<ClusterSnapshot> {
  const [activity, figures] = await Promise.all([clusterActivity(db), currentFigures(db)]);
  return { activity, figures };
}

/** How long the console's pages share one snapshot (they poll every 5 s). */
export const SHARED_SNAPSHOT_MAX_AGE_MS = 2_000;

const shared = new WeakMap<Db, { readAt: number; snapshot: Promise<ClusterSnapshot> }>();

/**
 * The snapshot the console's pages share: one read per `maxAgeMs` (and one at a time) per
 * process, so /resources and /workers polled within it show the same snapshot (the same
 * "as of"), not two reads a moment apart that disagree.
 */
export function sharedClusterSnapshot(db: Db, maxAgeMs = SHARED_SNAPSHOT_MAX_AGE_MS): Promise<ClusterSnapshot> {
  const hit = shared.get(db);
  if (hit && Date.now() - hit.readAt < maxAgeMs) return hit.snapshot;
  const snapshot = readClusterSnapshot(db);
  shared.set(db, { readAt: Date.now(), snapshot });
  // a failed read is not kept
  snapshot.catch(() => {
    if (shared.get(db)?.snapshot === snapshot) shared.delete(db);
  });
  return snapshot;
}

export type Overview = Awaited<ReturnType<typeof resourceOverview>>;

export type QuotaRow = { queue: string; tier: string; resource: string; used: number; nominal: number | null; borrowed: number };
export type SchedulerQuota =
  | { status: 'no scheduler running' }
  | {
      status: 'live';
      nodes: number;
      /** Workloads the scheduler holds admitted and keeps queued, per tier. */
      tiers: { tier: string; admitted: number; queued: number }[];
      /** Why queued workloads wait (backoff, quota, cohort, reserve, capacity…), as counts. */
      waiting: Record<string, number>;
      /** Use per quota queue and resource against its nominal quota, and what it borrows beyond it. */
      queues: QuotaRow[];
    };

/** The live scheduler's figures (lib/scheduler/samples.ts), when one wrote them in the last minute. */
function schedulerQuota(figs: Figure[]): SchedulerQuota {
  const nodes = figs.find((f) => f.name === 'scheduler_nodes');
  if (!nodes) return { status: 'no scheduler running' };
  // Only the newest pass counts: older samples of a label set that no longer occurs are stale.
  const fresh = figs.filter((f) => f.name.startsWith('scheduler_') && nodes.at.getTime() - f.at.getTime() < 1_000);
  const tiers = new Map<string, { tier: string; admitted: number; queued: number }>();
  const waiting: Record<string, number> = {};
  const queues = new Map<string, QuotaRow>();
  for (const f of fresh) {
    const l = f.labels;
    if (f.name === 'scheduler_admitted' || f.name === 'scheduler_queued') {
      const t = tiers.get(l.tier!) ?? { tier: l.tier!, admitted: 0, queued: 0 };
      t[f.name === 'scheduler_admitted' ? 'admitted' : 'queued'] = f.value;
      tiers.set(l.tier!, t);
    } else if (f.name === 'scheduler_waiting') {
      waiting[l.reason!] = f.value;
    } else if (f.name.startsWith('scheduler_quota_')) {
      const key = `${l.queue}/${l.resource}`;
      const q = queues.get(key) ?? { queue: l.queue!, tier: l.tier!, resource: l.resource!, used: 0, nominal: null, borrowed: 0 };
      if (f.name === 'scheduler_quota_used') q.used = f.value;
      if (f.name === 'scheduler_quota_nominal') q.nominal = f.value;
      if (f.name === 'scheduler_quota_borrowed') q.borrowed = f.value;
      queues.set(key, q);
    }
  }
  return {
    status: 'live',
    nodes: nodes.value,
    tiers: [...tiers.values()].sort((a, b) => a.tier.localeCompare(b.tier)),
    waiting,
    queues: [...queues.values()].sort((a, b) => a.queue.localeCompare(b.queue) || a.resource.localeCompare(b.resource)),
  };
}

/**
 * What the /resources page and /api/metrics show: node figures, capacity and quota from the
 * latest samples; sandboxes, queues and runs live from the tables (`clusterActivity`).
 */
export async function resourceOverview(db: Db, snapshot?: ClusterSnapshot) {
  const [{ figures: figs, activity }, compute] = await Promise.all([snapshot ?? readClusterSnapshot(db), computeByRun(db)]);
  const sampledAt = figs.reduce<Date | null>((a, f) => (!a || f.at > a ? f.at : a), null);
  const pick = (name: string, where: (l: Record<string, string>) => boolean = () => true) =>
    figs.find((f) => f.name === name && where(f.labels))?.value ?? null;
  const nodes = [...new Set(figs.filter((f) => f.name.startsWith('node_')).map((f) => f.labels.node!))].sort().map((node) => {
    const on = (l: Record<string, string>) => l.node === node;
    const gpus = figs
      .filter((f) => f.name === 'node_gpu_utilisation' && on(f.labels))
      .map((f) => ({
        gpu: f.labels.gpu!,
        utilisation: f.value,
        memoryUsedMb: pick('node_gpu_memory_used_mb', (l) => on(l) && l.gpu === f.labels.gpu),
        memoryTotalMb: pick('node_gpu_memory_total_mb', (l) => on(l) && l.gpu === f.labels.gpu),
      }));
    return {
      node,
      cpus: pick('node_cpus', on),
      cpuUtilisation: pick('node_cpu_utilisation', on),
      memoryUsedMb: pick('node_memory_used_mb', on),
      memoryTotalMb: pick('node_memory_total_mb', on),
      /** the filesystem holding the node's data directory (sandboxes, caches, the embedded database) */
      diskUsedMb: pick('node_disk_used_mb', on),
      diskTotalMb: pick('node_disk_total_mb', on),
      gpuPresent: pick('node_gpu_present', on) === 1,
      gpus,
      /** The node's CPU stacked into what uses it (core/compute.ts), fractions of its CPUs; null before the sampler's second reading. */
      cpuParts: cpuParts(figs, node),
    };
  });
  // Queues, sandboxes and runs now: the live snapshot /workers shows too (samples are the charts' history).
  const tiers = new Map<string, { tier: string; queued: number; admitted: number; queues: { queue: string; queued: number; running: number }[] }>();
  for (const q of activity.queues) {
    const t = tiers.get(q.tier) ?? { tier: q.tier, queued: 0, admitted: 0, queues: [] };
    t.queued += q.queued;
    t.admitted += q.running;
    t.queues.push({ queue: q.queue, queued: q.queued, running: q.running });
    tiers.set(q.tier, t);
  }
  const runs = activity.runs.map((r) => ({ run: r.id, name: r.name, status: r.status, jobsRunning: r.jobsRunning, sandboxes: r.busySandboxes }));
  const byResource = (name: string) => Object.fromEntries(figs.filter((f) => f.name === name).map((f) => [f.labels.resource!, f.value]));
  return {
    sampledAt,
    /** No sample in the last minute means the metrics worker is not running. */
    samplerRunning: sampledAt !== null,
    nodes,
    /** Busy sandboxes, running jobs and active runs now (server/workers/activity.ts, the same as /workers). */
    activity: { at: activity.at, totals: activity.totals },
    sandboxes: activity.sandboxes,
    tiers: [...tiers.values()].sort((a, b) => a.tier.localeCompare(b.tier)),
    capacity: byResource('capacity'),
    reserve: byResource('reserve'),
    quota: schedulerQuota(figs),
    runs,
    /** CPU- and GPU-seconds per run and phase so far (run_compute), the most recently active runs first. */
    compute,
  };
}

/** A node's CPU by part (node_cpu_part) from the newest reading among `figs`; null when none. */
export function cpuParts(figs: Figure[], node: string): Record<NodeCpuPart, number> | null {
  const of = figs.filter((f) => f.name === 'node_cpu_part' && f.labels.node === node);
  if (of.length === 0) return null;
  // the parts of the newest reading only (a part written once and no more is stale)
  const newest = Math.max(...of.map((f) => f.at.getTime()));
  const parts = Object.fromEntries(NODE_CPU_PARTS.map((p) => [p, 0])) as Record<NodeCpuPart, number>;
  for (const f of of)
    if (f.at.getTime() === newest && (NODE_CPU_PARTS as readonly string[]).includes(f.labels.part!)) parts[f.labels.part as NodeCpuPart] = f.value;
  return parts;
}

export const seriesInput = z.object({
  window: windowSchema.default('1h'),
  names: z
    .array(z.string().regex(/^[a-z_]{1,80}$/, 'metric names are lower-case letters and _'))
    .min(1)
    .max(10),
});

/** Points for the named metrics over the window, from the resolution that covers it. */
export async function resourceSeries(db: Db, input: z.infer<typeof seriesInput>) {
  const source = sourceForWindow(input.window);
  const since = new Date(Date.now() - WINDOW_MS[input.window]).toISOString();
  const rows = await db.execute<{ name: string; labels: Record<string, string>; at: string; value: number }>(sql`
    select name, labels, at, value from metric_samples
    where source = ${source} and name in (${sql.join(
      input.names.map((n) => sql`${n}`),
      sql`, `,
    )}) and at >= ${since}::timestamptz
    order by at limit 20000`);
  return { source, points: rows.map((r) => ({ name: r.name, labels: r.labels, at: new Date(r.at).getTime(), value: r.value })) };
}
