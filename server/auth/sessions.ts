import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { sessions, users } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { verifyPasswordOrDummy } from './passwords';
import { newSessionToken, sha256 } from './secrets';
import { SESSION_COOKIE } from './identity';
import { attemptFailed, attemptSucceeded, beginAttempt } from './throttle';

const SESSION_DAYS = 7;

/** Wrong username or password (or a disabled user): 401 with one message for all, so usernames do not leak. */
export class LoginError extends DomainError {
  constructor(message: string) {
    super('UNAUTHORIZED', message);
  }
}

/** Open a session for a user; returns the cookie value (only its sha256 is stored). */
export async function openSession(db: DbOrTx, userId: string) {
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.insert(sessions).values({ userId, tokenHash: sha256(token), expiresAt });
  return { token, expiresAt };
}

/**
 * Check a password and open a session. Throttled per username and per `source` address
 * (throttle.ts; throws ThrottledError). Unknown, disabled and known users all cost one scrypt
 * verification and the same writes, so neither the answer nor its timing tells them apart.
 */
export async function login(db: Db, username: string, password: string, source: string) {
  const attempt = await beginAttempt(db, { username, source });
  const [user] = await db.select().from(users).where(eq(users.username, username)).limit(1);
  const ok = await verifyPasswordOrDummy(password, user?.passwordHash ?? null);
  // Same message for unknown user and wrong password: don't reveal which usernames exist.
  if (!user || user.disabled || !ok) {
    await attemptFailed(db, attempt);
    throw new LoginError('Wrong username or password.');
  }
  await attemptSucceeded(db, attempt);
  const { token, expiresAt } = await openSession(db, user.id);
  await appendAudit(db, { actor: `user:${user.username}`, action: 'auth.login', targetType: 'user', targetId: user.id, details: { source } });
  return {
    token,
    expiresAt,
    user: { id: user.id, username: user.username, role: user.role, displayName: user.displayName, mustChangePassword: user.mustChangePassword },
  };
}

export async function logout(db: Db, cookieToken: string | undefined) {
  if (cookieToken) await db.delete(sessions).where(eq(sessions.tokenHash, sha256(cookieToken)));
}

export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Expires=${expiresAt.toUTCString()}${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = () => `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
