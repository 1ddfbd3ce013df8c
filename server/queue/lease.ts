import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { jobs } from '@/db/schema';
import { handedBack } from './hand-back';
import { inMs } from './claim';
import { JOBS_CHANNEL, SCHEDULER_CHANNEL } from '@/core/queues';

/**
 * Extend a held lease by `leaseMs` from now. Returns the new expiry, or null when the
 * lease is gone (expired, or the job was re-claimed, completed or cancelled): the
 * caller must then stop working on the job, since anything it writes will be fenced.
 */
export async function renewLease(db: Db, jobId: number, leaseToken: string, leaseMs: number): Promise<Date | null> {
  const rows = await db
    .update(jobs)
    .set({ leaseExpiresAt: inMs(leaseMs), updatedAt: sql`now()` })
    .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running'), gt(jobs.leaseExpiresAt, sql`now()`)))
    .returning({ leaseExpiresAt: jobs.leaseExpiresAt });
  return rows[0]?.leaseExpiresAt ?? null;
}

/**
 * Give a held job back without counting the attempt (a worker shutting down cleanly
 * mid-job), so another worker picks it up at once instead of after lease expiry.
 */
export async function releaseLease(db: Db, jobId: number, leaseToken: string): Promise<boolean> {
  const rows = await db
    .update(jobs)
    // A scheduled job goes back to the scheduler too (this node is stopping).
    .set({ ...handedBack(), runAfter: sql`now()` })
    .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running')))
    .returning({ id: jobs.id });
  // A released job is runnable again: wake idle workers like an insert does.
  if (rows.length > 0) {
    await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, queue) from jobs where id = ${jobId}`);
    await db.execute(sql`select pg_notify(${SCHEDULER_CHANNEL}, ${String(jobId)})`);
  }
  return rows.length > 0;
}
