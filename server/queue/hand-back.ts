import { sql } from 'drizzle-orm';
import { jobs } from '@/db/schema';

/**
 * The columns of a running job handed back to the queue without counting its attempt
 * (a clean shutdown, a preemption): lease cleared, and for a scheduled job its admission
 * too, so the scheduler places it again.
 */
export const handedBack = () => ({
  state: 'queued' as const,
  attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
  leaseOwner: null,
  leaseToken: null,
  leaseExpiresAt: null,
  admittedNode: null,
  admittedAt: null,
  borrowing: false,
  startedAt: null,
  preemptedAt: null,
  preemptedBy: null,
  updatedAt: sql`now()`,
});
