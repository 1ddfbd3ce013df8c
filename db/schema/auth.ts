import { bigserial, boolean, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { ROLES } from '@/core/roles';

export const userRole = pgEnum('user_role', ROLES);

/** A person (or automation identity) who can sign in. */
export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  username: text('username').notNull().unique(),
  displayName: text('display_name'),
  role: userRole('role').notNull(),
  /** scrypt$N$r$p$salt$hash — see server/auth/passwords.ts */
  passwordHash: text('password_hash').notNull(),
  disabled: timestamp('disabled_at', { withTimezone: true }),
  /** Set by an admin password reset: until the user picks a new password, a session can only change it. */
  mustChangePassword: boolean('must_change_password').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A browser login. Only the sha256 of the cookie value is stored. */
export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * Failed sign-in counters shared by every web process (server/auth/throttle.ts). One row per
 * key (`user:<name>` or `addr:<source>`); a row is reset or pruned once `expires_at` passes,
 * so anonymous callers cannot grow the table beyond what they send within one window.
 * Address rows also carry the open audit window for aggregated `auth.login_failed` rows.
 */
export const loginThrottle = pgTable(
  'login_throttle',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull().default(0),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    blockedUntil: timestamp('blocked_until', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    auditWindowStart: timestamp('audit_window_start', { withTimezone: true }),
    auditFailures: integer('audit_failures').notNull().default(0),
    auditThrottled: integer('audit_throttled').notNull().default(0),
  },
  (t) => [index('login_throttle_expires_idx').on(t.expiresAt), index('login_throttle_audit_window_idx').on(t.auditWindowStart)],
);

/** A bearer token for automation. Shown once at creation; only its sha256 is kept. */
export const apiTokens = pgTable('api_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  prefix: text('prefix').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});

/**
 * Append-only audit trail. Each row's hash covers its content and the previous row's
 * hash, so an edited or deleted row breaks the chain (`crucible audit verify`).
 */
export const auditLog = pgTable(
  'audit_log',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true, mode: 'string' }).notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  // the audit page filters by actor, action and time and pages by seq
  (t) => [
    index('audit_log_target_idx').on(t.targetType, t.targetId),
    index('audit_log_actor_idx').on(t.actor, t.seq),
    index('audit_log_action_idx').on(t.action, t.seq),
    index('audit_log_at_idx').on(t.at),
  ],
);
