import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { ComputePhase } from '@/core/compute';
import type { AlertLabels, AlertSeverity, AlertState, DeliveryState, NotificationKind, SilenceMatchers } from '@/core/alerts';
import type { LogLevel } from '@/core/log-records';
import { runs } from './runs';

/**
 * One alert (core/alerts.ts), identified by the fingerprint of its labels: re-evaluating a
 * condition that still holds updates the same row (deduplication). Written by the rules
 * evaluator (workers/alerts), read by the console and the notifier.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    fingerprint: text('fingerprint').notNull(),
    rule: text('rule').notNull(),
    severity: text('severity').$type<AlertSeverity>().notNull(),
    labels: jsonb('labels').$type<AlertLabels>().notNull(),
    /** what is wrong and what to look at, with the observed value */
    summary: text('summary').notNull(),
    value: doublePrecision('value'),
    state: text('state').$type<AlertState>().notNull(),
    runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    groupKey: text('group_key').notNull(),
    /** when the condition started holding this time */
    activeSince: timestamp('active_since', { withTimezone: true }).notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    lastEvaluatedAt: timestamp('last_evaluated_at', { withTimezone: true }).notNull(),
    /** muted by a firing alert that explains it (core/alerts.ts INHIBIT_RULES): its fingerprint */
    inhibitedBy: text('inhibited_by'),
    /** muted by a silence */
    silencedBy: uuid('silenced_by'),
    acknowledgedBy: text('acknowledged_by'),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('alerts_fingerprint_idx').on(t.fingerprint), index('alerts_state_idx').on(t.state), index('alerts_run_idx').on(t.runId)],
);

/** A silence: alerts whose labels match are not notified until it expires or is ended. */
export const alertSilences = pgTable(
  'alert_silences',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    matchers: jsonb('matchers').$type<SilenceMatchers>().notNull(),
    reason: text('reason').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    endedBy: text('ended_by'),
  },
  (t) => [index('alert_silences_expires_idx').on(t.expiresAt)],
);

/** What each notification group was last told: a new notification goes out only when that changes. */
export const alertGroups = pgTable('alert_groups', {
  groupKey: text('group_key').primaryKey(),
  labels: jsonb('labels').$type<AlertLabels>().notNull(),
  /** fingerprints of the firing alerts in the last notification (sorted); empty after a resolve notification */
  notified: jsonb('notified').$type<string[]>().notNull().default([]),
  notifiedAt: timestamp('notified_at', { withTimezone: true }),
  /** notifications so far: numbers each one, so a receiver gets each at most once */
  seq: integer('seq').notNull().default(0),
});

/** One notification to one receiver (an outbox row): delivered with retries by the notifier. */
export const alertNotifications = pgTable(
  'alert_notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    groupKey: text('group_key').notNull(),
    seq: integer('seq').notNull(),
    receiver: text('receiver').notNull(),
    kind: text('kind').$type<NotificationKind>().notNull(),
    /** the alerts it reports, as sent */
    alerts: jsonb('alerts').$type<Record<string, unknown>[]>().notNull(),
    state: text('state').$type<DeliveryState>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('alert_notifications_once_idx').on(t.receiver, t.groupKey, t.seq), index('alert_notifications_due_idx').on(t.state, t.nextAttemptAt)],
);

/** The delivery log: every attempt to send a notification and how it went. */
export const alertDeliveryAttempts = pgTable(
  'alert_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    notificationId: bigint('notification_id', { mode: 'number' })
      .notNull()
      .references(() => alertNotifications.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    httpStatus: integer('http_status'),
    error: text('error'),
    ok: boolean('ok').notNull(),
  },
  (t) => [index('alert_delivery_attempts_notification_idx').on(t.notificationId)],
);

/**
 * Structured log records from every process on every host (core/log-records.ts), shipped in
 * batches by each process's logger; kept for a retention period and under a size cap.
 */
export const logRecords = pgTable(
  'log_records',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    level: text('level').$type<LogLevel>().notNull(),
    msg: text('msg').notNull(),
    host: text('host').notNull(),
    /** the process: its worker id when it registered, else e.g. `web` or `cli` */
    workerId: text('worker_id'),
    process: text('process').notNull(),
    pid: integer('pid').notNull(),
    runId: uuid('run_id'),
    episodeId: uuid('episode_id'),
    jobId: bigint('job_id', { mode: 'number' }),
    /** other structured fields of the record */
    fields: jsonb('fields').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('log_records_at_idx').on(t.at),
    index('log_records_run_idx').on(t.runId, t.at),
    index('log_records_episode_idx').on(t.episodeId, t.at),
    index('log_records_worker_idx').on(t.workerId, t.at),
  ],
);

/**
 * CPU- and GPU-seconds each run used, per phase (core/compute.ts COMPUTE_PHASES): counters the
 * job loop adds to in the transaction that commits a job's effect, so a job re-run after a
 * killed worker counts once (the attempt that committed). Read by the run page, /resources
 * and /api/metrics (crucible_run_cpu_seconds_total).
 */
export const runCompute = pgTable(
  'run_compute',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    phase: text('phase').$type<ComputePhase>().notNull(),
    cpuSeconds: doublePrecision('cpu_seconds').notNull().default(0),
    gpuSeconds: doublePrecision('gpu_seconds').notNull().default(0),
    /** jobs whose use was added */
    jobs: integer('jobs').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.phase] })],
);
