import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { jobs } from '@/db/schema';
import { backoffMs, defaultBackoff, type BackoffPolicy } from './backoff';
import { inMs } from './claim';

export type FailResult =
  { outcome: 'retry'; retryInMs: number; attempts: number } | { outcome: 'dead'; attempts: number } | { outcome: 'ignored'; reason: string };

/** Error text kept on the job: the stack when there is one, bounded so rows stay small. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return text.length > 8_000 ? `${text.slice(0, 8_000)}…` : text;
}

/**
 * Record a failed attempt. The job goes back to `queued` after an exponential backoff
 * with jitter, or to `dead` (the dead-letter state) once it has used `maxAttempts`, or
 * at once with `retry: false` for errors that retrying cannot fix. The last error is
 * kept either way. A caller whose job was re-claimed by another worker (new token) or has
 * already finished changes nothing.
 */
export async function fail(
  db: Db,
  jobId: number,
  leaseToken: string,
  error: unknown,
  opts: { retry?: boolean; backoff?: BackoffPolicy } = {},
): Promise<FailResult> {
  const lastError = describeError(error);
  return db.transaction(async (tx) => {
    const [job] = await tx
      .select({ attempts: jobs.attempts, maxAttempts: jobs.maxAttempts })
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.leaseToken, leaseToken), eq(jobs.state, 'running')))
      .for('update');
    if (!job) return { outcome: 'ignored', reason: 'lease lost (expired, re-claimed or finished)' };
    const released = { leaseOwner: null, leaseToken: null, leaseExpiresAt: null, lastError, updatedAt: sql`now()` };
    if (opts.retry === false || job.attempts >= job.maxAttempts) {
      await tx
        .update(jobs)
        .set({ ...released, state: 'dead', finishedAt: sql`now()` })
        .where(eq(jobs.id, jobId));
      return { outcome: 'dead', attempts: job.attempts };
    }
    const delay = backoffMs(job.attempts, opts.backoff ?? defaultBackoff);
    // A scheduled job waits out its backoff unadmitted, so it holds no node's capacity meanwhile.
    await tx
      .update(jobs)
      .set({
        ...released,
        state: 'queued',
        runAfter: inMs(delay),
        admittedNode: null,
        admittedAt: null,
        borrowing: false,
        startedAt: null,
        preemptedAt: null,
        preemptedBy: null,
        queuedAt: sql`now()`,
      })
      .where(eq(jobs.id, jobId));
    return { outcome: 'retry', retryInMs: delay, attempts: job.attempts };
  });
}
