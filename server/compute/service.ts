import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runCompute, runs } from '@/db/schema';
import { COMPUTE_PHASES, type ComputePhase, type ComputeUsage } from '@/core/compute';

/** What the writes below need of a database or a transaction. */
type Writer = Pick<Db, 'execute'>;

/**
 * Add one job's use to its run's per-phase counters (nothing when the run is gone). Called in the transaction that commits the
 * job's effect (workers/jobs/job-loop.ts), so a job re-run after its worker died counts once.
 */
export async function addRunCompute(tx: Writer, runId: string, usage: ComputeUsage): Promise<void> {
  const phases = COMPUTE_PHASES.filter((p) => (usage.cpu[p] ?? 0) > 0 || (usage.gpu[p] ?? 0) > 0);
  for (const phase of phases) {
    await tx.execute(sql`
      insert into ${runCompute} (run_id, phase, cpu_seconds, gpu_seconds, jobs)
      select ${runId}::uuid, ${phase}, ${usage.cpu[phase] ?? 0}::float8, ${usage.gpu[phase] ?? 0}::float8, 1
      where exists (select 1 from ${runs} where id = ${runId}::uuid)
      on conflict (run_id, phase) do update set
        cpu_seconds = ${runCompute.cpuSeconds} + excluded.cpu_seconds,
        gpu_seconds = ${runCompute.gpuSeconds} + excluded.gpu_seconds,
        jobs = ${runCompute.jobs} + 1,
        updated_at = now()`);
  }
}

export type PhaseRow = { phase: ComputePhase; cpuSeconds: number; gpuSeconds: number; jobs: number };
export type RunComputeUsage = {
  runId: string;
  /** every phase in COMPUTE_PHASES order, zeros included */
  phases: PhaseRow[];
  cpuSeconds: number;
  gpuSeconds: number;
};

function usageOf(runId: string, rows: { phase: string; cpuSeconds: number; gpuSeconds: number; jobs: number }[]): RunComputeUsage {
  const by = new Map(rows.map((r) => [r.phase, r]));
  const phases = COMPUTE_PHASES.map((phase) => {
    const r = by.get(phase);
    return { phase, cpuSeconds: r?.cpuSeconds ?? 0, gpuSeconds: r?.gpuSeconds ?? 0, jobs: r?.jobs ?? 0 };
  });
  return {
    runId,
    phases,
    cpuSeconds: phases.reduce((a, p) => a + p.cpuSeconds, 0),
    gpuSeconds: phases.reduce((a, p) => a + p.gpuSeconds, 0),
  };
}

/** One run's CPU- and GPU-seconds per phase (the run page's "Compute" section). */
export async function runComputeUsage(db: Db, runId: string): Promise<RunComputeUsage> {
  const rows = await db
    .select({ phase: runCompute.phase, cpuSeconds: runCompute.cpuSeconds, gpuSeconds: runCompute.gpuSeconds, jobs: runCompute.jobs })
    .from(runCompute)
    .where(eq(runCompute.runId, runId));
  return usageOf(runId, rows);
}

/** Runs listed at most on /resources (the newest used first). */
const RUNS_LIMIT = 200;

export type RunComputeRow = RunComputeUsage & { name: string; status: string };

/** Every run's use per phase, the most recently active first (/resources, /api/metrics). */
export async function computeByRun(db: Db, limit = RUNS_LIMIT): Promise<RunComputeRow[]> {
  const rows = await db
    .select({
      runId: runCompute.runId,
      name: runs.name,
      status: runs.status,
      phase: runCompute.phase,
      cpuSeconds: runCompute.cpuSeconds,
      gpuSeconds: runCompute.gpuSeconds,
      jobs: runCompute.jobs,
      last: sql<string>`max(${runCompute.updatedAt}) over (partition by ${runCompute.runId})`.as('last'),
    })
    .from(runCompute)
    .innerJoin(runs, eq(runs.id, runCompute.runId))
    .orderBy(desc(sql`last`), runCompute.runId);
  const out: RunComputeRow[] = [];
  const at = new Map<string, number>();
  const grouped = new Map<string, typeof rows>();
  for (const r of rows) {
    if (!grouped.has(r.runId)) {
      if (grouped.size >= limit) continue;
      grouped.set(r.runId, []);
      at.set(r.runId, out.length);
      out.push({ ...usageOf(r.runId, []), name: r.name, status: r.status });
    }
    grouped.get(r.runId)!.push(r);
  }
  for (const [runId, rs] of grouped) out[at.get(runId)!] = { ...usageOf(runId, rs), name: rs[0]!.name, status: rs[0]!.status };
  return out;
}
