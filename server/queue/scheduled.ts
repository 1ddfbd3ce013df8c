import { and, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { jobs, runs } from '@/db/schema';
import { resourceRequestInput, type Resources } from '@/core/resources';
import { episodeSandboxLimits } from '@/core/run-config';
import { JOBS_CHANNEL, JOB_QUEUES, SCHEDULED_RUN_QUEUES, SCHEDULER_CHANNEL, WORKER_KINDS, type JobQueue } from '@/core/queues';
import { handedBack } from './hand-back';
import { inMs } from './time';
import type { Executor } from './types';

// Scheduled workloads: jobs whose row carries a tier and a resource request. The scheduler
// (lib/scheduler/live.ts) admits each to a node; only that node's workers may claim it.
// See docs/scheduler.md for the life of a scheduled job.

export const workloadInput = z
  .object({
    tier: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'tier names are lower-case words like "critical" or "best-effort"'),
    /** Quota queue in the scheduler config; defaults to the tier's own queue. */
    queue: z.string().min(1).max(100).optional(),
    request: resourceRequestInput,
  })
  .strict();
export type WorkloadInput = z.input<typeof workloadInput>;
export type Workload = { tier: string; queue?: string; request: Resources };

/** What the learner step of an RL iteration asks for (one CPU-heavy step on this host today). */
export const LEARNER_REQUEST: Resources = { cpu: 1, memoryMb: 2048, gpu: 0, gpuMemoryMb: 0, diskMb: 1024 };

type RunConfigView = { queue?: string; quota?: { cpus?: number; memoryMb?: number; scratchMb?: number } };

/**
 * The workload of a job enqueued without one, from its run's configuration: an episode asks
 * for its sandbox (capped by the run's per-task quota), the learner step for
 * `LEARNER_REQUEST`, both in the run's tier (`config.queue`) with the job's priority (an
 * episode's is the run's `priority`). Other queues, and jobs without a run, are not scheduled.
 */
export async function defaultWorkload(db: Executor, queue: string, runId: string | undefined): Promise<Workload | undefined> {
  if (!runId || !SCHEDULED_RUN_QUEUES.includes(queue as JobQueue)) return undefined;
  const [run] = await db.select({ config: runs.config }).from(runs).where(eq(runs.id, runId));
  if (!run) return undefined;
  const c = run.config as RunConfigView;
  const tier = c.queue ?? 'standard';
  if (queue === JOB_QUEUES.rlLearn) return { tier, request: { ...LEARNER_REQUEST } };
  const q = c.quota ?? {};
  return {
    tier,
    request: {
      cpu: Math.min(q.cpus ?? 2, episodeSandboxLimits.cpus),
      memoryMb: Math.min(q.memoryMb ?? 4096, episodeSandboxLimits.memoryMb),
      gpu: 0,
      gpuMemoryMb: 0,
      diskMb: Math.min(q.scratchMb ?? 50 * 1024, episodeSandboxLimits.diskMb),
    },
  };
}

/** How long after its last heartbeat a scheduler still counts as running (CRUCIBLE_SCHEDULER_STALE_MS). */
export function schedulerStaleMs(): number {
  // Read here rather than passed in: every claim builds this SQL, far below any entry point.
  return settings().CRUCIBLE_SCHEDULER_STALE_MS;
}

/**
 * True (in SQL) while some scheduler worker heartbeats. Without one, scheduled jobs are
 * claimed like any other (no admission), so a deployment or test without the scheduler
 * still runs its work; quotas and the reserve are then not enforced.
 */
export const schedulerAlive = () =>
  sql`exists (select 1 from workers w where w.kind = ${WORKER_KINDS.scheduler} and w.status = 'running' and w.heartbeat_at > now() - ${schedulerStaleMs()} * interval '1 millisecond')`;

export type LeaseBeat = { expiresAt: Date | null; preempted: string | null };

/**
 * The heartbeat of a held job: extend the lease and say whether the scheduler preempted it
 * meanwhile (the NOTIFY on `PREEMPT_CHANNEL` is the fast path; this catches a missed one).
 */
export async function heartbeatLease(db: Db, jobId: number, leaseToken: string, leaseMs: number): Promise<LeaseBeat> {
  const rows = await db
    .update(jobs)
    .set({ leaseExpiresAt: inMs(leaseMs), updatedAt: sql`now()` })
    .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running'), gt(jobs.leaseExpiresAt, sql`now()`)))
    .returning({ expiresAt: jobs.leaseExpiresAt, preemptedAt: jobs.preemptedAt, reason: jobs.lastRequeueReason });
  const r = rows[0];
  if (!r) return { expiresAt: null, preempted: null };
  return { expiresAt: r.expiresAt, preempted: r.preemptedAt ? (r.reason ?? 'preempted') : null };
}

/**
 * A preempted job's worker stopped it: put it back in the queue, admission dropped, the
 * attempt not counted (it was not the job's fault). `run_after` keeps the backoff the
 * scheduler set, and the reason stays in `last_requeue_reason`. Fenced by the lease token.
 */
export async function yieldPreempted(db: Db, jobId: number, leaseToken: string): Promise<boolean> {
  // The preemptor's queue, to wake its node's workers: it may start once this one stopped.
  const [by] = await db.execute<{ queue: string }>(sql`select p.queue from jobs j join jobs p on p.id = j.preempted_by where j.id = ${jobId}`);
  const rows = await db
    .update(jobs)
    .set({ ...handedBack(), queuedAt: sql`now()` })
    .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running')))
    .returning({ id: jobs.id });
  if (rows.length > 0) {
    await db.execute(sql`select pg_notify(${SCHEDULER_CHANNEL}, ${String(jobId)})`);
    if (by) await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${by.queue})`);
  }
  return rows.length > 0;
}
