import { and, asc, desc, eq, inArray, isNull, lte, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { jobs } from '@/db/schema';
import { queueName } from './enqueue';
import { SCHEDULER_CHANNEL } from '@/core/queues';
import { schedulerAlive } from './scheduled';
import { inMs } from './time';
import type { ClaimedJob } from './types';

export const claimInput = z.object({
  queues: z.array(queueName).min(1, 'claim needs at least one queue name'),
  /** Who holds the lease (a worker id), for operators reading the jobs table. */
  owner: z.string().min(1).max(200),
  leaseMs: z
    .number()
    .int()
    .min(100)
    .max(24 * 3_600_000),
  limit: z.number().int().min(1).max(1_000).default(1),
  /**
   * The scheduler node this worker belongs to. Scheduled jobs (a `tier` on the row) are
   * claimed only by workers of the node they were admitted to, and only once the jobs they
   * preempted have stopped. Without a node, only unscheduled jobs are claimed (and scheduled
   * ones while no scheduler is running).
   */
  node: z.string().min(1).max(200).optional(),
  /**
   * `admitted`: only jobs the scheduler admitted to `node` (their number is bounded by the
   * node's capacity, not by the worker's concurrency); `unadmitted`: only the others
   * (unscheduled jobs, and scheduled ones while no scheduler runs). Default: both.
   */
  only: z.enum(['admitted', 'unadmitted']).optional(),
});
export type ClaimInput = z.input<typeof claimInput>;

export { inMs };

/**
 * Claim up to `limit` runnable jobs, highest priority first: queued jobs whose time has
 * come, and running jobs whose lease expired (their worker died or stalled), each claim
 * counting as an attempt. FOR UPDATE SKIP LOCKED lets many claimers run concurrently
 * without blocking on, or double-claiming, the same rows. A job whose lease expired on
 * its last allowed attempt is dead-lettered instead of claimed.
 */
export async function claim(db: Db, input: ClaimInput): Promise<ClaimedJob[]> {
  const v = claimInput.parse(input);
  for (let round = 0; round < 10; round++) {
    const { claimed, exhausted } = await db.transaction(async (tx) => {
      const candidates = await tx
        .select({ id: jobs.id, state: jobs.state, attempts: jobs.attempts, maxAttempts: jobs.maxAttempts })
        .from(jobs)
        .where(
          and(
            inArray(jobs.queue, v.queues),
            or(
              v.only === 'admitted' ? sql`false` : isNull(jobs.tier),
              v.node && v.only !== 'unadmitted'
                ? and(
                    eq(jobs.admittedNode, v.node),
                    sql`not exists (select 1 from jobs victim where victim.preempted_by = ${jobs.id} and victim.state = 'running')`,
                  )
                : sql`false`,
              v.only === 'admitted' ? sql`false` : and(isNull(jobs.admittedNode), sql`not ${schedulerAlive()}`),
            ),
            or(and(eq(jobs.state, 'queued'), lte(jobs.runAfter, sql`now()`)), and(eq(jobs.state, 'running'), lt(jobs.leaseExpiresAt, sql`now()`))),
          ),
        )
        .orderBy(desc(jobs.priority), asc(jobs.runAfter), asc(jobs.id))
        .limit(v.limit)
        .for('update', { skipLocked: true });
      const dead = candidates.filter((c) => c.state === 'running' && c.attempts >= c.maxAttempts).map((c) => c.id);
      const live = candidates.filter((c) => !dead.includes(c.id)).map((c) => c.id);
      if (dead.length > 0) {
        // A dead scheduled job frees its admission: tell the scheduler.
        await tx.execute(sql`select pg_notify(${SCHEDULER_CHANNEL}, 'dead')`);
        await tx
          .update(jobs)
          .set({
            state: 'dead',
            lastError: sql`coalesce(${jobs.lastError} || E'\n', '') || 'lease expired on the last attempt (worker ' || coalesce(${jobs.leaseOwner}, '?') || ' lost or stalled)'`,
            leaseToken: null,
            leaseOwner: null,
            leaseExpiresAt: null,
            admittedNode: null,
            finishedAt: sql`now()`,
            updatedAt: sql`now()`,
          })
          .where(inArray(jobs.id, dead));
      }
      if (live.length === 0) return { claimed: [] as ClaimedJob[], exhausted: dead.length };
      const rows = await tx
        .update(jobs)
        .set({
          state: 'running',
          attempts: sql`${jobs.attempts} + 1`,
          leaseOwner: v.owner,
          leaseToken: sql`gen_random_uuid()`,
          leaseExpiresAt: inMs(v.leaseMs),
          startedAt: sql`now()`,
          // A new attempt starts unpreempted (a mark left by an attempt that failed meanwhile).
          preemptedAt: null,
          preemptedBy: null,
          updatedAt: sql`now()`,
        })
        .where(inArray(jobs.id, live))
        .returning();
      rows.sort((a, b) => b.priority - a.priority || a.runAfter.getTime() - b.runAfter.getTime() || a.id - b.id);
      return { claimed: rows as ClaimedJob[], exhausted: dead.length };
    });
    // Only dead-lettered rows came back: look again so the caller still gets live work.
    if (claimed.length > 0 || exhausted === 0) return claimed;
  }
  return [];
}
