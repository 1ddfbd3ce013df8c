import type { Db } from '@/db/client';
import type { jobs } from '@/db/schema';

/** A drizzle transaction handle, as passed to `db.transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything queries can run on: the pool or an open transaction. */
export type Executor = Db | Tx;

export type Job = typeof jobs.$inferSelect;

/** A job held by this worker: the lease token fences every later write about it. `P`: its payload, once validated. */
export type ClaimedJob<P extends Record<string, unknown> = Record<string, unknown>> = Omit<Job, 'payload'> & {
  payload: P;
  leaseToken: string;
  leaseExpiresAt: Date;
};
