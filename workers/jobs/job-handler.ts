import type { z } from 'zod';
import type { Db } from '@/db/client';
import { JOB_PAYLOADS, type JobPayload } from '@/core/job-payloads';
import type { JobQueue } from '@/core/queues';
import type { BackoffPolicy, ClaimedJob, JobEffect } from '@/server/queue';
import { silentLogger, type Logger } from '@/server/logs/logger';

export type JobContext = {
  db: Db;
  workerId: string;
  /** Aborted when the lease is lost or the worker is shutting down: stop and return. */
  signal: AbortSignal;
  log: (message: string) => void;
  /** Structured logs bound to this job (its id, and the payload's run and episode); the job loop always sets it. */
  logger?: Logger;
};

/** The job's logger, or one that writes nowhere (a handler run directly by a test). */
export const jobLogger = (ctx: Pick<JobContext, 'logger'>): Logger => ctx.logger ?? silentLogger;

/**
 * Processes the jobs of one queue. `run` does the slow work outside any transaction
 * (its lease is heartbeated meanwhile) and returns the effect: the durable writes that
 * commit in the same transaction as the job's completion, so they happen exactly once.
 * Throwing retries the job with backoff; throw `PermanentJobError` to dead-letter it.
 * `P` is the payload `run` sees; handlers of the contract's queues are built with `jobHandler`,
 * which takes it from core/job-payloads.ts.
 */
export type JobHandler<P extends Record<string, unknown> = Record<string, unknown>> = {
  queue: string;
  /**
   * The job kind's payload schema. The job loop validates every payload against it before
   * `run` (which then sees the parsed payload); a payload that does not fit dead-letters
   * the job at once with the kind and the field in the error, since retrying cannot fix it.
   */
  payload?: z.ZodType<P>;
  /** Lease length; renewed every third of it while `run` works. */
  leaseMs?: number;
  backoff?: BackoffPolicy;
  // method syntax: a list of handlers of different payloads is a JobHandler[]
  run(job: ClaimedJob<P>, ctx: JobContext): Promise<JobEffect | void>;
  /** Release process-wide resources (e.g. a sandbox pool) when the worker stops. */
  close?: () => Promise<void>;
};

/**
 * A handler for one of the contract's queues: the payload schema is the queue's own
 * (core/job-payloads.ts), and `run` sees the payload typed by it.
 */
export function jobHandler<Q extends JobQueue>(queue: Q, handler: Omit<JobHandler<JobPayload<Q>>, 'queue' | 'payload'>): JobHandler<JobPayload<Q>> {
  return { ...handler, queue, payload: JOB_PAYLOADS[queue] as unknown as z.ZodType<JobPayload<Q>> };
}

/** An error that retrying cannot fix (bad payload, missing run): goes straight to dead. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export const DEFAULT_LEASE_MS = 30_000;

/**
 * The job's payload parsed by its handler's schema (the payload as stored when it has none).
 * Throws PermanentJobError naming the job kind and each bad field.
 */
export function validatedPayload<P extends Record<string, unknown>>(
  handler: Pick<JobHandler<P>, 'queue' | 'payload'>,
  job: { id: number; payload: Record<string, unknown> },
): P {
  if (!handler.payload) return job.payload as P;
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
