import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { BackoffPolicy, ClaimedJob, JobEffect } from '@/server/queue';

export type JobContext = {
  db: Db;
  workerId: string;
  /** Aborted when the lease is lost or the worker is shutting down: stop and return. */
  signal: AbortSignal;
  log: (message: string) => void;
};

/**
 * Processes the jobs of one queue. `run` does the slow work outside any transaction
 * (its lease is heartbeated meanwhile) and returns the effect: the durable writes that
 * commit in the same transaction as the job's completion, so they happen exactly once.
 * Throwing retries the job with backoff; throw `PermanentJobError` to dead-letter it.
 */
export type JobHandler = {
  queue: string;
  /**
   * The job kind's payload schema. The job loop validates every payload against it before
   * `run` (which then sees the parsed payload); a payload that does not fit dead-letters
   * the job at once with the kind and the field in the error, since retrying cannot fix it.
   */
  payload?: z.ZodType<Record<string, unknown>>;
  /** Lease length; renewed every third of it while `run` works. */
  leaseMs?: number;
  backoff?: BackoffPolicy;
  run: (job: ClaimedJob, ctx: JobContext) => Promise<JobEffect | void>;
  /** Release process-wide resources (e.g. a sandbox pool) when the worker stops. */
  close?: () => Promise<void>;
};

/** An error that retrying cannot fix (bad payload, missing run): goes straight to dead. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export const DEFAULT_LEASE_MS = 30_000;

/**
 * The job's payload parsed by its handler's schema (the payload as stored when it has none).
 * Throws PermanentJobError naming the job kind and each bad field.
 */
export function validatedPayload(
  handler: Pick<JobHandler, 'queue' | 'payload'>,
  job: { id: number; payload: Record<string, unknown> },
): Record<string, unknown> {
  if (!handler.payload) return job.payload;
  const r = handler.payload.safeParse(job.payload);
  if (r.success) return r.data;
  const what = r.error.issues.map((i) => `${i.path.map(String).join('.') || '(payload)'}: ${i.message}`).join('; ');
  throw new PermanentJobError(
    `bad ${handler.queue} payload in job ${job.id}: ${what}; the code that enqueued it must send what the ${handler.queue} handler's schema requires (retrying cannot fix it)`,
  );
}

/** Accepts a handler module's `handlers` export or its default export. */
export function handlersFromModule(mod: Record<string, unknown>, where: string): JobHandler[] {
  const list = (mod.handlers ?? mod.default) as unknown;
  if (!Array.isArray(list) || !list.every((h) => h && typeof h.queue === 'string' && typeof h.run === 'function')) {
    throw new Error(`${where} must export \`handlers\` (or a default export): an array of { queue, run } job handlers`);
  }
  const queues = list.map((h: JobHandler) => h.queue);
  const dup = queues.find((q, i) => queues.indexOf(q) !== i);
  if (dup) throw new Error(`${where} registers queue "${dup}" twice`);
  return list as JobHandler[];
}
