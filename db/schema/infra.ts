import { bigint, bigserial, boolean, doublePrecision, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { JOB_STATES } from '@/core/queues';
import type { NodeCapacity, Resources } from '@/core/resources';
import type { PhaseSeconds } from '@/core/compute';
import { environments, runs } from './runs';
import { episodes } from './episodes';

/** One line of a worker's log as its heartbeat stores it: when it was logged (ISO time) and the text. */
export type WorkerLogLine = { at: string; line: string };

/** A worker process (and the node it runs on) that has registered and heartbeats. */
export const workers = pgTable(
  'workers',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    hostname: text('hostname').notNull(),
    pid: integer('pid').notNull(),
    capacity: jsonb('capacity').$type<NodeCapacity>().notNull(),
    status: text('status').notNull().default('running'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
    stoppedAt: timestamp('stopped_at', { withTimezone: true }),
    /**
     * Set by processes that run scheduled jobs: the scheduler node they belong to. Every
     * process of one node carries the same name and capacity; null for other workers.
     */
    node: text('node'),
    /**
     * This process's own use, reported with each heartbeat (workers/process/process-stats.ts):
     * CPU as % of one core over the last heartbeat interval (above 100 when it uses several),
     * resident set size in MB. Null until the first heartbeat.
     */
    cpuPercent: doublePrecision('cpu_percent'),
    rssMb: doublePrecision('rss_mb'),
    /** The newest lines of the worker's own log, oldest first, bounded and cleaned (workers/process/log-ring.ts). */
    recentLogs: jsonb('recent_logs').$type<WorkerLogLine[]>().notNull().default([]),
    /**
     * This process's own CPU-seconds since it started, per compute phase its jobs were in
     * (lib/compute/meter.ts), with each heartbeat: the metrics worker tells the learner's share
     * of the node's CPU from it. Empty for processes that run no jobs.
     */
    cpuPhaseSeconds: jsonb('cpu_phase_seconds').$type<PhaseSeconds>().notNull().default({}),
  },
  (t) => [index('workers_heartbeat_idx').on(t.heartbeatAt), index('workers_node_idx').on(t.node)],
);

export const jobState = pgEnum('job_state', JOB_STATES);

/**
 * The work queue. Claimed with FOR UPDATE SKIP LOCKED; a claim is a lease renewed by
 * heartbeat; `leaseToken` fences a worker whose lease expired from completing the job.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    priority: integer('priority').notNull().default(0),
    state: jobState('state').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    runAfter: timestamp('run_after', { withTimezone: true }).notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseToken: uuid('lease_token'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    lastError: text('last_error'),
    result: jsonb('result').$type<Record<string, unknown>>(),
    idempotencyKey: text('idempotency_key'),
    runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    // ---- scheduled workloads (docs/scheduler.md). `tier` null: not scheduled, claimed by anyone.
    /** Scheduler tier (critical / standard / best-effort); `priority` is its priority class. */
    tier: text('tier'),
    /** Quota queue in the scheduler config; null means the tier's own queue. */
    workloadQueue: text('workload_queue'),
    request: jsonb('request').$type<Resources>(),
    /** When it last entered the queue (submission, preemption or node loss): waits age from here. */
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
    /** Admission: only workers of this node may claim it. */
    admittedNode: text('admitted_node'),
    admittedAt: timestamp('admitted_at', { withTimezone: true }),
    /** Its queue was above nominal when admitted: lenders may reclaim it. */
    borrowing: boolean('borrowing').notNull().default(false),
    /** When the current attempt started running (claimed); minimum run time counts from here. */
    startedAt: timestamp('started_at', { withTimezone: true }),
    /** Set while it is being evicted: its worker stops it and puts it back in the queue. */
    preemptedAt: timestamp('preempted_at', { withTimezone: true }),
    preemptedBy: bigint('preempted_by', { mode: 'number' }),
    preemptions: integer('preemptions').notNull().default(0),
    /** Why it last left a node without finishing (preemption or node loss), for operators. */
    lastRequeueReason: text('last_requeue_reason'),
  },
  (t) => [
    index('jobs_claim_idx').on(t.queue, t.state, t.priority, t.runAfter),
    index('jobs_scheduled_idx').on(t.state, t.tier, t.admittedNode),
    index('jobs_preempted_by_idx').on(t.preemptedBy),
    uniqueIndex('jobs_idempotency_idx').on(t.queue, t.idempotencyKey),
  ],
);

/** A sandbox instance and its lifecycle, for leak sweeping and the resources view. */
export const sandboxes = pgTable('sandboxes', {
  id: text('id').primaryKey(),
  workerId: text('worker_id'),
  runtime: text('runtime').notNull(),
  environmentId: uuid('environment_id').references(() => environments.id),
  envHash: text('env_hash'),
  state: text('state').notNull(),
  episodeId: uuid('episode_id').references(() => episodes.id, { onDelete: 'set null' }),
  limits: jsonb('limits').$type<Record<string, number>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  destroyedAt: timestamp('destroyed_at', { withTimezone: true }),
});

/** A time-series point: run metrics (reward mean, KL…) and resource utilisation. */
export const metricSamples = pgTable(
  'metric_samples',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    source: text('source'),
    name: text('name').notNull(),
    step: integer('step'),
    value: doublePrecision('value').notNull(),
    labels: jsonb('labels').$type<Record<string, string>>().notNull().default({}),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('metric_samples_run_name_idx').on(t.runId, t.name, t.step), index('metric_samples_at_idx').on(t.at)],
);
