import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { EnvSessionRequest, EnvSessionStatus } from '@/core/env-sessions';
import type { AgentToolName } from '@/core/repo-tasks';
import type { ToolCallFormatName } from '@/core/tool-call-formats';
import { tasks } from './runs';

/**
 * A step-API session (core/env-sessions.ts): one repository task's sandbox, hosted by the job
 * `jobId` on some worker for a trainer outside Crucible. The trainer's requests are rows of
 * env_session_requests, answered in order by the host.
 */
export const envSessions = pgTable(
  'env_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    status: text('status').$type<EnvSessionStatus>().notNull().default('starting'),
    runtime: text('runtime').notNull(),
    tier: text('tier').notNull(),
    tools: jsonb('tools').$type<AgentToolName[]>().notNull(),
    toolCallFormat: text('tool_call_format').$type<ToolCallFormatName>().notNull(),
    toolOutputBytes: integer('tool_output_bytes').notNull(),
    idleTimeoutS: integer('idle_timeout_s').notNull(),
    /** who opened it (`user:NAME`), for the audit trail and listing */
    actor: text('actor').notNull(),
    jobId: bigint('job_id', { mode: 'number' }),
    /** the worker hosting it once claimed */
    workerId: text('worker_id'),
    runtimeUsed: text('runtime_used'),
    envHash: text('env_hash'),
    /** the last request number handed out (requests are numbered 1, 2, … per session) */
    requestSeq: integer('request_seq').notNull().default(0),
    /** why it ended (failed, lost, expired) */
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    readyAt: timestamp('ready_at', { withTimezone: true }),
    lastActiveAt: timestamp('last_active_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [index('env_sessions_status_idx').on(t.status), index('env_sessions_job_idx').on(t.jobId)],
);

/** One request to a session's host and, once answered, its response. */
export const envSessionRequests = pgTable(
  'env_session_requests',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => envSessions.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    request: jsonb('request').$type<EnvSessionRequest>().notNull(),
    /** null until answered */
    response: jsonb('response').$type<Record<string, unknown>>(),
    /** set when the host could not answer (the sandbox failed, the session ended first) */
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.seq] })],
);
