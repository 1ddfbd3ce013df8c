import { z } from 'zod';
import { environmentName } from './environments';
import { JOB_QUEUES, type JobQueue } from './queues';
import { sandboxRuntimeName } from './sandbox-runtimes';
import { allowEntry, limitsInputSchema } from './sandbox-limits';

/**
 * Each job queue with its payload schema: the one contract between whoever enqueues a job
 * (`enqueueJob` in server/queue) and the handler that runs it (`jobHandler` in
 * workers/jobs/job-handler.ts), typed from the schema as tRPC types a procedure by its input.
 * The producer's payload is checked when it is enqueued, the consumer's when it is claimed
 * (a stored payload may predate a change). Extra fields on the RL payloads are kept, not refused.
 */

const runId = z.uuid("runId must be the run's id (a uuid)");

/** rl.advance: start a queued run or top up a running one. */
const rlAdvance = z.looseObject({ runId });
/** rl.episode: roll out and score one episode. */
const rlEpisode = z.looseObject({ runId, episodeId: z.uuid("episodeId must be the episode's id (a uuid)") });
/** rl.learn: the learner step of one iteration. */
const rlLearn = z.looseObject({ runId, iteration: z.number().int().nonnegative() });

/** sandbox.exec: one command in a pooled sandbox (what `SandboxManager.exec` takes). */
export const sandboxExecPayload = z
  .object({
    cmd: z.array(z.string()).min(1, 'cmd needs at least the program'),
    runtime: sandboxRuntimeName.default('bwrap'),
    env: environmentName.default('default'),
    limits: limitsInputSchema.default({}),
    allow: z.array(allowEntry).default([]),
    /** files copied into the sandbox first; content is base64 */
    files: z.array(z.object({ dest: z.string(), contentBase64: z.string(), mode: z.number().int().optional() })).default([]),
    runId: z.uuid().optional(),
    episodeId: z.uuid().optional(),
  })
  .strict();

/** review.diagnose: re-run a disputed reward's scoring for its reviewer. */
const reviewDiagnose = z.looseObject({ diagnosisId: z.uuid("diagnosisId must be the diagnosis's id (a uuid)") });

/** env.session: host one step-API session (core/env-sessions.ts) until it is closed or idle. */
const envSession = z.object({ sessionId: z.uuid("sessionId must be the session's id (a uuid)") }).strict();

export const JOB_PAYLOADS = {
  [JOB_QUEUES.rlAdvance]: rlAdvance,
  [JOB_QUEUES.rlEpisode]: rlEpisode,
  [JOB_QUEUES.rlLearn]: rlLearn,
  [JOB_QUEUES.sandboxExec]: sandboxExecPayload,
  [JOB_QUEUES.reviewDiagnose]: reviewDiagnose,
  [JOB_QUEUES.envSession]: envSession,
} as const satisfies Record<JobQueue, z.ZodType<Record<string, unknown>>>;

/** What a handler of queue Q receives (defaults applied). */
export type JobPayload<Q extends JobQueue> = z.output<(typeof JOB_PAYLOADS)[Q]>;
/** What a producer of queue Q sends (defaults may be left out). */
export type JobPayloadInput<Q extends JobQueue> = z.input<(typeof JOB_PAYLOADS)[Q]>;
export type SandboxExecPayload = JobPayloadInput<typeof JOB_QUEUES.sandboxExec>;

export const isJobQueue = (queue: string): queue is JobQueue => Object.hasOwn(JOB_PAYLOADS, queue);
