import { and, asc, eq, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { loginThrottle } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';

/**
 * Login throttling shared by every web process through Postgres (table `login_throttle`).
 *
 * Two counters guard each password check: one per username (`user:<name>`, known or not, so
 * lockouts do not reveal which names exist) and one per source address (`addr:<bucket>`, see
 * client-address.ts). Below `free` failures nothing happens; from there each attempt must wait
 * 1 s, 2 s, 4 s … after the previous failure; from `lockAfter` failures the key is locked for
 * 15 minutes, and each failure after a lockout locks it again. A counter resets after 15 quiet
 * minutes (no failures, no block). An admin password reset clears the username's counter.
 *
 * Every attempt is counted as a failure *before* the password is checked (and taken back if it
 * was right), under a row lock: concurrent attempts, e.g. the calls of one tRPC batch, each see
 * the ones before them, so a batch cannot try more passwords than the limits allow.
 */
export const USER_LIMITS = { free: 5, lockAfter: 10 } as const;
export const ADDRESS_LIMITS = { free: 20, lockAfter: 30 } as const;
export const LOCKOUT_MS = 15 * 60_000;
/** A key's counter resets this long after its last failure or the end of its block. */
export const QUIET_MS = 15 * 60_000;
/** Failed logins from one source are audited once per window, then summarised (see recordForAudit). */
export const AUDIT_WINDOW_MS = 10 * 60_000;

export const userKey = (username: string) => `user:${username}`;
const addressKey = (source: string) => `addr:${source}`;

/** How long a key is blocked after its `failures`-th failure. */
export function blockAfter(failures: number, limits: { free: number; lockAfter: number }): number {
  if (failures < limits.free) return 0;
  if (failures >= limits.lockAfter) return LOCKOUT_MS;
  return Math.min(1000 * 2 ** (failures - limits.free), LOCKOUT_MS);
}

export class ThrottledError extends DomainError {
  declare readonly retryAt: Date;
  constructor(retryAt: Date, now: Date) {
    const wait = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
    const inWords = wait < 120 ? `${wait} s` : `${Math.ceil(wait / 60)} min`;
    super(
      'TOO_MANY_REQUESTS',
      `Too many failed sign-ins for this username or from your address. Try again after ${retryAt.toISOString()} (in ${inWords}), or ask an admin to reset your password.`,
      retryAt,
    );
  }
}

export type Attempt = { username: string; source: string; at: Date; addressBlockedBefore: Date | null };

type Row = typeof loginThrottle.$inferSelect;

/**
 * Reserve one password check for `username` from `source`. Throws ThrottledError (after
 * recording the refusal) when either key is blocked; otherwise the attempt is already counted
 * as a failure and the caller must report the outcome with attemptSucceeded or attemptFailed.
 */
export async function beginAttempt(db: Db, who: { username: string; source: string }, now = new Date()): Promise<Attempt> {
  await sweep(db, now);
  const keys = [addressKey(who.source), userKey(who.username)].sort();
  const outcome = await db.transaction(async (tx) => {
    // Sorted keys, inserted and locked in that order: concurrent attempts cannot deadlock.
    await tx
      .insert(loginThrottle)
      .values(keys.map((key) => ({ key, expiresAt: now })))
      .onConflictDoNothing();
    const rows = (await tx.select().from(loginThrottle).where(inArray(loginThrottle.key, keys)).orderBy(asc(loginThrottle.key)).for('update')).map((r) =>
      r.expiresAt <= now ? { ...r, failures: 0, lastFailureAt: null, blockedUntil: null } : r,
    );
    const address = rows.find((r) => r.key === addressKey(who.source))!;
    const blocked = rows.filter((r) => r.blockedUntil && r.blockedUntil > now).map((r) => r.blockedUntil!.getTime());
    if (blocked.length) {
      // A refused attempt leaves no row of its own behind (only the address's audit counter).
      const empty = rows.filter((r) => r.key !== address.key && r.failures === 0).map((r) => r.key);
      if (empty.length) await tx.delete(loginThrottle).where(inArray(loginThrottle.key, empty));
      await recordForAudit(tx, address, 'throttled', who.username, now);
      return { retryAt: new Date(Math.max(...blocked)) };
    }
    for (const r of rows) {
      const failures = r.failures + 1;
      const block = blockAfter(failures, r.key === address.key ? ADDRESS_LIMITS : USER_LIMITS);
      const blockedUntil = block ? new Date(now.getTime() + block) : null;
      await tx
        .update(loginThrottle)
        .set({ failures, lastFailureAt: now, blockedUntil, expiresAt: new Date((blockedUntil ?? now).getTime() + QUIET_MS) })
        .where(eq(loginThrottle.key, r.key));
    }
    return { attempt: { ...who, at: now, addressBlockedBefore: address.blockedUntil } };
  });
  if (outcome.retryAt) throw new ThrottledError(outcome.retryAt, now);
  return outcome.attempt!;
}

/** The password was right: the username's counter resets; the address gives back this attempt. */
export async function attemptSucceeded(db: Db, attempt: Attempt): Promise<void> {
  await db.transaction(async (tx) => {
    // Address row first: every transaction here locks `addr:` before `user:` keys (no deadlocks).
    await tx
      .select({ key: loginThrottle.key })
      .from(loginThrottle)
      .where(eq(loginThrottle.key, addressKey(attempt.source)))
      .for('update');
    await tx.delete(loginThrottle).where(eq(loginThrottle.key, userKey(attempt.username)));
    // Not a reset: one valid account must not let an address wipe its record of failures.
    await tx
      .update(loginThrottle)
      .set({
        failures: sql`greatest(${loginThrottle.failures} - 1, 0)`,
        // Undo the block this attempt set, unless another attempt has failed since.
        blockedUntil: sql`case when ${loginThrottle.lastFailureAt} = ${attempt.at.toISOString()} then ${attempt.addressBlockedBefore?.toISOString() ?? null}::timestamptz else ${loginThrottle.blockedUntil} end`,
      })
      .where(eq(loginThrottle.key, addressKey(attempt.source)));
  });
}

/**
 * The password was wrong (already counted by beginAttempt). The wait runs from now, when the
 * failure is known, not from when the check began; and the audit aggregate is updated.
 */
export async function attemptFailed(db: Db, attempt: Attempt, now = new Date()): Promise<void> {
  const keys = [addressKey(attempt.source), userKey(attempt.username)].sort();
  await db.transaction(async (tx) => {
    const rows = await tx.select().from(loginThrottle).where(inArray(loginThrottle.key, keys)).orderBy(asc(loginThrottle.key)).for('update');
    for (const r of rows) {
      const block = blockAfter(r.failures, r.key === addressKey(attempt.source) ? ADDRESS_LIMITS : USER_LIMITS);
      if (!block) continue;
      const blockedUntil = new Date(Math.max(now.getTime() + block, r.blockedUntil?.getTime() ?? 0));
      await tx
        .update(loginThrottle)
        .set({ blockedUntil, expiresAt: new Date(blockedUntil.getTime() + QUIET_MS) })
        .where(eq(loginThrottle.key, r.key));
    }
    const address = rows.find((r) => r.key === addressKey(attempt.source));
    if (address) await recordForAudit(tx, address, 'failure', attempt.username, now);
  });
}

/** Forget a username's failures (admin password reset). */
export async function clearUsername(db: DbOrTx, username: string): Promise<void> {
  await db.delete(loginThrottle).where(eq(loginThrottle.key, userKey(username)));
}

/**
 * Failed logins are audited per source and window so anonymous callers cannot grow the audit
 * log without bound: the first failure from a source opens a window and writes one
 * `auth.login_failed` row (with the username tried); later failures and throttled attempts
 * only increment counters on the source's throttle row. When the window has closed, the next
 * event from that source (or a sweep: before every login attempt, and every minute in the
 * maintenance worker) writes one summary
 * `auth.login_failed` row with `count`, the total for the whole window including the first.
 * So each source costs at most two audit rows per 10 minutes. Call with the row locked.
 */
async function recordForAudit(tx: DbOrTx, row: Row, kind: 'failure' | 'throttled', username: string, now: Date) {
  let r = row;
  if (r.auditWindowStart && now.getTime() - r.auditWindowStart.getTime() >= AUDIT_WINDOW_MS) r = await closeAuditWindow(tx, r);
  if (!r.auditWindowStart) {
    await appendAudit(tx, {
      actor: `anon:${sourceOf(r.key)}`,
      action: 'auth.login_failed',
      targetType: 'login_source',
      targetId: sourceOf(r.key),
      details: {
        source: sourceOf(r.key),
        username,
        reason: kind,
        count: 1,
        note: `later failures from this source within ${AUDIT_WINDOW_MS / 60_000} min are summarised in one row`,
      },
    });
  }
  await tx
    .update(loginThrottle)
    .set({
      auditWindowStart: r.auditWindowStart ?? now,
      auditFailures: r.auditFailures + (kind === 'failure' ? 1 : 0),
      auditThrottled: r.auditThrottled + (kind === 'throttled' ? 1 : 0),
    })
    .where(eq(loginThrottle.key, r.key));
}

async function closeAuditWindow(tx: DbOrTx, r: Row): Promise<Row> {
  const count = r.auditFailures + r.auditThrottled;
  if (r.auditWindowStart && count > 1) {
    await appendAudit(tx, {
      actor: `anon:${sourceOf(r.key)}`,
      action: 'auth.login_failed',
      targetType: 'login_source',
      targetId: sourceOf(r.key),
      details: {
        source: sourceOf(r.key),
        summary: true,
        count,
        failures: r.auditFailures,
        throttled: r.auditThrottled,
        from: r.auditWindowStart.toISOString(),
        to: new Date(r.auditWindowStart.getTime() + AUDIT_WINDOW_MS).toISOString(),
      },
    });
  }
  const closed = { auditWindowStart: null, auditFailures: 0, auditThrottled: 0 };
  await tx.update(loginThrottle).set(closed).where(eq(loginThrottle.key, r.key));
  return { ...r, ...closed };
}

const sourceOf = (key: string) => key.slice(key.indexOf(':') + 1);

/**
 * Summarise closed audit windows and delete expired counters. Runs before every attempt and
 * periodically in the maintenance worker (workers/maintenance/checks.ts), so a summary does
 * not wait for the next sign-in. Two indexed queries, usually empty; rows another process
 * holds are skipped, not waited for.
 */
export async function sweep(db: Db, now = new Date()): Promise<void> {
  const windowClosedBefore = new Date(now.getTime() - AUDIT_WINDOW_MS);
  await db.transaction(async (tx) => {
    const closed = await tx
      .select()
      .from(loginThrottle)
      .where(lte(loginThrottle.auditWindowStart, windowClosedBefore))
      .limit(100)
      .for('update', { skipLocked: true });
    for (const r of closed) await closeAuditWindow(tx, r);
  });
  const expired = db
    .select({ key: loginThrottle.key })
    .from(loginThrottle)
    .where(and(lt(loginThrottle.expiresAt, now), isNull(loginThrottle.auditWindowStart)))
    .limit(1000)
    .for('update', { skipLocked: true });
  await db.delete(loginThrottle).where(inArray(loginThrottle.key, expired));
}
