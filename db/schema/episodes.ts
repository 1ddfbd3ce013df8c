import {
  type AnyPgColumn,
  bigserial,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { EpisodeGrading, StoredToolCall } from '@/core/repo-tasks';
import type { TurnTestResult } from '@/core/tasks';
import { users } from './auth';
import { policyVersions, runs, tasks } from './runs';

export const episodeStatus = pgEnum('episode_status', [
  'pending',
  'running',
  'scored',
  'failed',
  'sandbox_error',
  'env_mismatch',
  'preempted',
  'cancelled',
  'masked',
]);

/** One trajectory: a policy attempting one task over several turns, in one group. */
export const episodes = pgTable(
  'episodes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    taskId: uuid('task_id').references(() => tasks.id),
    iteration: integer('iteration').notNull().default(0),
    groupIndex: integer('group_index').notNull().default(0),
    sampleIndex: integer('sample_index').notNull().default(0),
    status: episodeStatus('status').notNull().default('pending'),
    policyVersionId: uuid('policy_version_id').references(() => policyVersions.id),
    /** the sandbox runtime that actually served the episode (never silently downgraded) */
    runtime: text('runtime'),
    envHash: text('env_hash'),
    /** the worker host that ran it (CRUCIBLE_NODE or the hostname) and the worker process */
    host: text('host'),
    workerId: text('worker_id'),
    turnsCount: integer('turns_count').notNull().default(0),
    endReason: text('end_reason'),
    error: text('error'),
    attempt: integer('attempt').notNull().default(1),
    /** repository tasks: the agent's patch and the clean grading run's per-test results */
    grading: jsonb('grading').$type<EpisodeGrading>(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('episodes_run_idx').on(t.runId, t.iteration), uniqueIndex('episodes_slot_idx').on(t.runId, t.iteration, t.groupIndex, t.sampleIndex)],
);

/** One turn of an episode: the policy's action and what executing it produced. */
export const turns = pgTable(
  'turns',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    episodeId: uuid('episode_id')
      .notNull()
      .references(() => episodes.id, { onDelete: 'cascade' }),
    index: integer('index').notNull(),
    action: text('action').notNull(),
    /** exact token ids the policy produced / saw, with loss mask (1 = policy token) */
    tokenIds: jsonb('token_ids').$type<number[]>(),
    logprobs: jsonb('logprobs').$type<number[]>(),
    lossMask: jsonb('loss_mask').$type<number[]>(),
    observation: text('observation'),
    stdout: text('stdout'),
    stderr: text('stderr'),
    exitCode: integer('exit_code'),
    execStatus: text('exec_status'),
    policyMs: integer('policy_ms'),
    sandboxMs: integer('sandbox_ms'),
    cpuMs: integer('cpu_ms'),
    maxRssMb: real('max_rss_mb'),
    /** input/output tasks: each check's result this turn */
    tests: jsonb('tests').$type<TurnTestResult[]>(),
    /** agent turns: the tool calls the assistant message made and their outputs */
    toolCalls: jsonb('tool_calls').$type<StoredToolCall[]>(),
    /** agent turns: the workspace's diff against the pristine one after this turn */
    workspaceDiff: text('workspace_diff'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('turns_episode_index_idx').on(t.episodeId, t.index)],
);

/** The score of an episode, with its components and the provenance that makes it trustworthy. */
export const rewards = pgTable(
  'rewards',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    episodeId: uuid('episode_id')
      .notNull()
      .references(() => episodes.id, { onDelete: 'cascade' }),
    value: doublePrecision('value').notNull(),
    /** {passRate, testsPassed, testsTotal, style, efficiency, ...} */
    components: jsonb('components').$type<Record<string, number>>().notNull(),
    envHash: text('env_hash').notNull(),
    harnessVersion: text('harness_version').notNull(),
    policyVersionId: uuid('policy_version_id').references(() => policyVersions.id),
    disputed: text('disputed'),
    correctedValue: doublePrecision('corrected_value'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // one reward per episode: completion of scoring is idempotent
  (t) => [uniqueIndex('rewards_episode_idx').on(t.episodeId)],
);

export const reviewVerdict = pgEnum('review_verdict', ['correct', 'false_negative', 'false_positive', 'unclear']);

/**
 * A person's spot check of one episode's reward. An episode sampled for double review has
 * two rows (slot 0 and 1) that must go to different reviewers.
 */
export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    episodeId: uuid('episode_id')
      .notNull()
      .references(() => episodes.id, { onDelete: 'cascade' }),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    slot: integer('slot').notNull().default(0),
    /** why the sampler picked it: boundary:partial_pass, anomaly:task_outlier, uniform, ... (comma-separated) */
    sampleReason: text('sample_reason').notNull(),
    reviewerId: uuid('reviewer_id').references(() => users.id),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    claimExpiresAt: timestamp('claim_expires_at', { withTimezone: true }),
    verdict: reviewVerdict('verdict'),
    correctedReward: doublePrecision('corrected_reward'),
    note: text('note'),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** sha256 of the episode's task and its actions: byte-identical episodes (an RL arm and its control early on) share it */
    outputHash: text('output_hash'),
    /**
     * Set on an identical episode's item: not reviewed again, it carries the verdict of the item
     * it is a twin of (server/reviews/verdicts.ts), and is never claimable.
     */
    twinOf: uuid('twin_of').references((): AnyPgColumn => reviews.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('reviews_queue_idx').on(t.verdict, t.claimExpiresAt),
    uniqueIndex('reviews_episode_slot_idx').on(t.episodeId, t.slot),
    index('reviews_output_hash_idx').on(t.outputHash),
    index('reviews_twin_of_idx').on(t.twinOf),
  ],
);

/** Every verdict and edit of a review, oldest first: a verdict's visible history. */
export const reviewEvents = pgTable(
  'review_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    reviewId: uuid('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actor: text('actor').notNull(),
    verdict: reviewVerdict('verdict'),
    correctedReward: doublePrecision('corrected_reward'),
    note: text('note'),
  },
  (t) => [index('review_events_review_idx').on(t.reviewId)],
);

/**
 * A disputed reward's re-run: the episode's final code on the baseline environment and on
 * the environment it was scored in, side by side.
 */
export const diagnoses = pgTable('diagnoses', {
  id: uuid('id').primaryKey().defaultRandom(),
  reviewId: uuid('review_id')
    .notNull()
    .references(() => reviews.id, { onDelete: 'cascade' }),
  episodeId: uuid('episode_id')
    .notNull()
    .references(() => episodes.id, { onDelete: 'cascade' }),
  status: text('status').notNull().default('pending'),
  baseline: jsonb('baseline').$type<Record<string, unknown>>(),
  scored: jsonb('scored').$type<Record<string, unknown>>(),
  error: text('error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});

/** Small admin-editable settings (review guidelines, ...). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: text('updated_by'),
});
