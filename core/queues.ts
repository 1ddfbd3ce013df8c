/**
 * Names shared by whoever enqueues work and whoever consumes it: job queues (the `jobs.queue`
 * column), job states, worker kinds (`workers.kind`) and the Postgres NOTIFY channels. A
 * producer and its handler that spell a name differently never meet and nothing fails, so
 * both import it from here. Imports nothing from the project.
 *
 * SQL written before this module spells some of these by hand and must keep them: migration
 * 0001 (`pg_notify('crucible_jobs', NEW.queue)` on every insert into jobs) and 0003 (inserted
 * an `rl.advance` job when a run started; dropped by 0007); core/queues.test.ts checks them
 * against this file.
 */

/** Job queues that production code enqueues to, each consumed by one handler. */
export const JOB_QUEUES = {
  /** Starts or continues an RL run: warm start, then tops up its episodes (workers/rl). */
  rlAdvance: 'rl.advance',
  /** One RL episode: rollout and reward (workers/rl). */
  rlEpisode: 'rl.episode',
  /** The learner step of one RL iteration (workers/rl). */
  rlLearn: 'rl.learn',
  /** A command in a sandbox (lib/sandbox). */
  sandboxExec: 'sandbox.exec',
  /** Re-running a disputed reward's scoring for its reviewer (workers/reviews). */
  reviewDiagnose: 'review.diagnose',
  /** Hosts one step-API session: its sandbox, and the trainer's requests in order (workers/environments). */
  envSession: 'env.session',
} as const;
export type JobQueue = (typeof JOB_QUEUES)[keyof typeof JOB_QUEUES];

/** The RL loop's three queues, by step. */
export const RL_QUEUES = { advance: JOB_QUEUES.rlAdvance, episode: JOB_QUEUES.rlEpisode, learn: JOB_QUEUES.rlLearn } as const;

/** Queues whose jobs the scheduler admits to a node with a resource request derived from their run. */
export const SCHEDULED_RUN_QUEUES: readonly JobQueue[] = [JOB_QUEUES.rlEpisode, JOB_QUEUES.rlLearn];

/** A job's state (`job_state` enum in db/schema/infra.ts). */
export const JOB_STATES = ['queued', 'running', 'done', 'dead', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Worker process kinds (`workers.kind`), each registered by its `main.ts`. */
export const WORKER_KINDS = {
  jobs: 'jobs',
  maintenance: 'maintenance',
  metrics: 'metrics',
  scheduler: 'scheduler',
  sandbox: 'sandbox',
} as const;
export type WorkerKind = (typeof WORKER_KINDS)[keyof typeof WORKER_KINDS];

/** NOTIFY channel the jobs insert trigger (migration 0001) notifies with the queue name: wakes idle workers. */
export const JOBS_CHANNEL = 'crucible_jobs';
/** NOTIFY channel that wakes the scheduler (new or returned workloads, freed capacity). */
export const SCHEDULER_CHANNEL = 'crucible_schedule';
/** NOTIFY channel the scheduler uses to tell a node "stop job <id>, it was preempted". */
export const PREEMPT_CHANNEL = 'crucible_preempt';

/**
 * Scheduling tiers, highest first: a run's `queue` in its config, and the tiers of the
 * scheduler's default configuration (lib/scheduler/config.ts). Jobs without a tier count as `standard`.
 */
export const SCHEDULING_TIERS = ['critical', 'standard', 'best-effort'] as const;
export type SchedulingTier = (typeof SCHEDULING_TIERS)[number];
