import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { jobs } from '@/db/schema';
import { must } from '@/core/must';
import { isJobQueue, JOB_PAYLOADS, type JobPayloadInput } from '@/core/job-payloads';
import type { JobQueue } from '@/core/queues';
import { defaultWorkload, workloadInput } from './scheduled';
import type { Executor } from './types';

export const queueName = z.string().regex(/^[a-z][a-z0-9._:-]{0,99}$/, 'queue names are lower-case words like "episodes" or "rewards.score"');

export const enqueueInput = z.object({
  queue: queueName,
  payload: z.record(z.string(), z.unknown()).default({}),
  /** Higher runs first. */
  priority: z.number().int().min(-1_000_000).max(1_000_000).default(0),
  maxAttempts: z.number().int().min(1).max(100).default(5),
  /** Not before this time (delayed jobs). */
  runAfter: z.date().optional(),
  /** Enqueueing the same key on the same queue again returns the existing job. */
  idempotencyKey: z.string().min(1).max(500).optional(),
  runId: z.uuid().optional(),
  /**
   * Makes it a scheduled workload: it runs only once the scheduler admits it to a node.
   * Without it, `rl.episode`/`rl.learn` jobs of a run get their run's tier and quota.
   */
  workload: workloadInput.optional(),
});
export type EnqueueInput = z.input<typeof enqueueInput>;

/**
 * Add a job. Works inside a caller's transaction (pass the tx) so a job can be created
 * atomically with the state that needs it; the insert trigger NOTIFYs idle workers.
 */
export async function enqueue(db: Executor, input: EnqueueInput): Promise<{ id: number; created: boolean }> {
  const v = enqueueInput.parse(input);
  // a contract queue's payload is checked here, where the producer can still be told
  if (isJobQueue(v.queue)) {
    const r = JOB_PAYLOADS[v.queue].safeParse(v.payload);
    if (!r.success)
      throw new Error(
        `bad ${v.queue} payload: ${r.error.issues.map((i) => `${i.path.map(String).join('.') || '(payload)'}: ${i.message}`).join('; ')}; send what core/job-payloads.ts says a ${v.queue} job carries`,
      );
  }
  const workload = v.workload ?? (await defaultWorkload(db, v.queue, v.runId));
  const inserted = await db
    .insert(jobs)
    .values({
      queue: v.queue,
      payload: v.payload,
      priority: v.priority,
      maxAttempts: v.maxAttempts,
      runAfter: v.runAfter,
      idempotencyKey: v.idempotencyKey,
      runId: v.runId,
      ...(workload ? { tier: workload.tier, workloadQueue: workload.queue ?? null, request: workload.request } : {}),
    })
    .onConflictDoNothing({ target: [jobs.queue, jobs.idempotencyKey] })
    .returning({ id: jobs.id });
  const [created] = inserted;
  if (created) return { id: created.id, created: true };
  // Conflict: only possible with an idempotency key.
  const key = must(v.idempotencyKey, `an idempotency key (the insert into ${v.queue} conflicted without one)`);
  const [existing] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.queue, v.queue), eq(jobs.idempotencyKey, key)));
  return { id: must(existing, `job with idempotency key ${key} on ${v.queue} (the insert conflicted on it)`).id, created: false };
}

/** Enqueue on one of the contract's queues, the payload typed by its schema (core/job-payloads.ts). */
export function enqueueJob<Q extends JobQueue>(
  db: Executor,
  queue: Q,
  payload: JobPayloadInput<Q>,
  options: Omit<EnqueueInput, 'queue' | 'payload'> = {},
): Promise<{ id: number; created: boolean }> {
  return enqueue(db, { ...options, queue, payload: payload as Record<string, unknown> });
}
