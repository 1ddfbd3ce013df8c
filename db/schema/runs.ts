import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { PhaseProgress } from '@/core/run-phases';
import type { RunConfig } from '@/core/run-config';
import type { RepoTaskDifficulty, WorkspaceFiles } from '@/core/repo-tasks';
import { RISK_TIERS, TASK_LANGUAGES, type TaskKind } from '@/core/tasks';
import { RUN_STATUSES } from '@/core/run-status';
import { users } from './auth';

export const runStatus = pgEnum('run_status', RUN_STATUSES);
export const taskLanguage = pgEnum('task_language', TASK_LANGUAGES);
export const riskTier = pgEnum('risk_tier', RISK_TIERS);

/** A named collection of tasks, e.g. the built-in suite or an imported HumanEval file. */
export const taskSuites = pgTable('task_suites', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  description: text('description'),
  source: text('source').notNull().default('import'),
  /** Repository suites: the agent's system prompt for runs on this suite (a run's agentSystemPrompt overrides it; null: Crucible's default). */
  systemPrompt: text('system_prompt'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One programming task: a prompt, an entry point and the tests that score it. */
export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    suiteId: uuid('suite_id')
      .notNull()
      .references(() => taskSuites.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    language: taskLanguage('language').notNull(),
    prompt: text('prompt').notNull(),
    entryPoint: text('entry_point').notNull(),
    /** [{input: [...args], expected}] or {humaneval: "def check(candidate): ..."} */
    tests: jsonb('tests').notNull(),
    risk: riskTier('risk').notNull().default('routine'),
    split: text('split').notNull().default('train'),
    difficulty: integer('difficulty'),
    environmentName: text('environment_name'),
    demonstration: text('demonstration'),
    /** io: a function against input/output tests; repo: a repository task (details in repo_tasks); text: text scored by checks */
    kind: text('kind').$type<TaskKind>().notNull().default('io'),
  },
  (t) => [uniqueIndex('tasks_suite_external_idx').on(t.suiteId, t.externalId)],
);

/**
 * A repository task's workspace (path -> content, as in core/repo-tasks), stored once per
 * content hash: tasks on the same base commit share one row.
 */
export const repoWorkspaces = pgTable('repo_workspaces', {
  sha256: text('sha256').primaryKey(),
  files: jsonb('files').$type<WorkspaceFiles>().notNull(),
  fileCount: integer('file_count').notNull(),
  totalBytes: bigint('total_bytes', { mode: 'number' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** What a repository task needs beyond its tasks row (prompt = the problem statement). */
export const repoTasks = pgTable(
  'repo_tasks',
  {
    taskId: uuid('task_id')
      .primaryKey()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    workspaceSha256: text('workspace_sha256')
      .notNull()
      .references(() => repoWorkspaces.sha256),
    /** files added (or replaced) only at grading */
    hiddenTests: jsonb('hidden_tests').$type<WorkspaceFiles>().notNull(),
    setup: text('setup'),
    testCommand: text('test_command'),
    failToPass: jsonb('fail_to_pass').$type<string[]>().notNull(),
    passToPass: jsonb('pass_to_pass').$type<string[]>().notNull(),
    goldPatch: text('gold_patch'),
    difficulty: text('difficulty').$type<RepoTaskDifficulty>(),
  },
  (t) => [index('repo_tasks_workspace_idx').on(t.workspaceSha256)],
);

/**
 * An immutable, content-addressed environment (files + toolchain). `contentHash` is the
 * digest of the file manifest; every reward records the hash it was computed under.
 */
export const environments = pgTable('environments', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  contentHash: text('content_hash').notNull(),
  /** the environment's image (a tarball of its rootfs and manifest) in the artifact store, once `crucible env publish` put it there */
  imageSha256: text('image_sha256'),
  /** exact versions, e.g. {"python3": "3.11.2", "node": "v20.20.2"} */
  toolchainLock: jsonb('toolchain_lock').$type<Record<string, string>>().notNull().default({}),
  manifestPath: text('manifest_path'),
  fileCount: integer('file_count'),
  totalBytes: doublePrecision('total_bytes'),
  /** set when disputed verdicts cluster on this hash; an admin then quarantines or clears it */
  flaggedAt: timestamp('flagged_at', { withTimezone: true }),
  flagReason: text('flag_reason'),
  quarantinedAt: timestamp('quarantined_at', { withTimezone: true }),
  quarantineReason: text('quarantine_reason'),
  lastVerifiedAt: timestamp('last_verified_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A training run: its validated config, lifecycle status and progress. */
export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    status: runStatus('status').notNull().default('queued'),
    config: jsonb('config').$type<RunConfig>().notNull(),
    suiteId: uuid('suite_id').references(() => taskSuites.id),
    createdBy: uuid('created_by').references(() => users.id),
    clonedFrom: uuid('cloned_from'),
    /** Set on a control arm: the run it is the no-update (learning rate 0) twin of, same config and seed otherwise. */
    controlOf: uuid('control_of').references((): AnyPgColumn => runs.id),
    currentIteration: integer('current_iteration').notNull().default(0),
    episodesTotal: integer('episodes_total').notNull().default(0),
    episodesDone: integer('episodes_done').notNull().default(0),
    /** latest mean reward, for the runs table */
    lastRewardMean: doublePrecision('last_reward_mean'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** the phase in progress, counted: held-out tasks evaluated of all (core/run-phases.ts) */
    phaseProgress: jsonb('phase_progress').$type<PhaseProgress>(),
  },
  (t) => [index('runs_status_idx').on(t.status), index('runs_created_idx').on(t.createdAt), index('runs_control_of_idx').on(t.controlOf)],
);

/** Every change to a run (status transitions, iteration milestones, errors). */
export const runEvents = pgTable(
  'run_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    type: text('type').notNull(),
    fromStatus: runStatus('from_status'),
    toStatus: runStatus('to_status'),
    actor: text('actor'),
    message: text('message'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index('run_events_run_idx').on(t.runId, t.at)],
);

/** A saved policy checkpoint, an artifact named by its `sha256` that every worker host can fetch. */
export const policyVersions = pgTable(
  'policy_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    parentId: uuid('parent_id'),
    /** where an older checkpoint lived on its host's disk (before issue 19); new versions are found by `sha256` in the artifact store */
    checkpointPath: text('checkpoint_path'),
    /** the checkpoint's artifact (lib/artifacts): the sha256 of its bytes, covering weights, optimizer state, tokenizer and config */
    sha256: text('sha256').notNull(),
    /** its size in bytes */
    bytes: bigint('bytes', { mode: 'number' }),
    executionProvider: text('execution_provider'),
    metrics: jsonb('metrics').$type<Record<string, number>>().notNull().default({}),
    isReference: boolean('is_reference').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('policy_versions_run_version_idx').on(t.runId, t.version)],
);
