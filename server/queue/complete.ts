import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { jobs } from '@/db/schema';
import { SCHEDULER_CHANNEL } from '@/core/queues';
import type { Job, Tx } from './types';

/** The job's durable outcome, written in the same transaction that marks it done. */
export type JobEffect = (tx: Tx, job: Job) => Promise<Record<string, unknown> | void>;

export type CompleteResult = { completed: true; result: Record<string, unknown> | null } | { completed: false; reason: string };

/**
 * Apply `effect` and mark the job done in ONE transaction, if and only if this caller
 * still holds an unexpired lease (`leaseToken`). The row lock taken here also keeps
 * claimers off the job until commit, so a lease that runs out mid-effect cannot lead to
 * a second worker applying it too. Completing twice, or after losing the lease, applies
 * nothing and says why.
 */
export async function complete(db: Db, jobId: number, leaseToken: string, effect?: JobEffect): Promise<CompleteResult> {
  return db.transaction(async (tx) => {
    const [job] = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running'), gt(jobs.leaseExpiresAt, sql`now()`)))
      .for('update');
    if (!job) {
      const [now] = await tx.select({ state: jobs.state }).from(jobs).where(eq(jobs.id, jobId));
      const reason = !now ? 'job does not exist' : now.state === 'done' ? 'job already completed' : 'lease lost (expired or re-claimed)';
      return { completed: false, reason };
    }
    const result = (await effect?.(tx, job)) ?? null;
    await tx
      .update(jobs)
      .set({ state: 'done', result, leaseExpiresAt: null, finishedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(jobs.id, jobId));
    // A scheduled job freed its node's capacity: wake the scheduler (delivered at commit).
    if (job.tier) await tx.execute(sql`select pg_notify(${SCHEDULER_CHANNEL}, ${String(jobId)})`);
    return { completed: true, result };
  });
}
