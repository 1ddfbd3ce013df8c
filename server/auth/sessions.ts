import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { sessions, users } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { verifyPassword } from './passwords';
import { newSessionToken, sha256 } from './secrets';
import { SESSION_COOKIE } from './identity';

const SESSION_DAYS = 7;

export class LoginError extends Error {}

/** Check a password and open a session; returns the cookie value (never stored in clear). */
export async function login(db: Db, username: string, password: string) {
  const [user] = await db.select().from(users).where(eq(users.username, username)).limit(1);
  // Same message for unknown user and wrong password: don't reveal which usernames exist.
  if (!user || user.disabled || !(await verifyPassword(password, user.passwordHash))) {
    await appendAudit(db, { actor: `anon:${username}`, action: 'auth.login_failed', targetType: 'user', targetId: user?.id ?? null });
    throw new LoginError('Wrong username or password.');
  }
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.insert(sessions).values({ userId: user.id, tokenHash: sha256(token), expiresAt });
  await appendAudit(db, { actor: `user:${user.username}`, action: 'auth.login', targetType: 'user', targetId: user.id });
  return { token, expiresAt, user: { id: user.id, username: user.username, role: user.role, displayName: user.displayName } };
}

export async function logout(db: Db, cookieToken: string | undefined) {
  if (cookieToken) await db.delete(sessions).where(eq(sessions.tokenHash, sha256(cookieToken)));
}

export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Expires=${expiresAt.toUTCString()}${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = () => `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
