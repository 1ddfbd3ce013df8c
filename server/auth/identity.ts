import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { apiTokens, sessions, users } from '@/db/schema';
import type { Role } from '@/core/roles';
import { sha256 } from './secrets';

/** Who is calling: a signed-in user, a token holder, or the local CLI (full trust: it holds the DB). */
export type CurrentUser = {
  id: string | null;
  username: string;
  role: Role;
  displayName: string | null;
  via: 'session' | 'token' | 'local';
  /**
   * A session whose password an admin reset: until changed, only auth.me, auth.changePassword
   * and auth.logout are allowed (server/trpc.ts). Tokens are separate credentials and unaffected.
   */
  mustChangePassword?: boolean;
};

/** The audit actor string for a caller, e.g. `user:alice`, `token:alice`, `cli:root`. */
export const actorOf = (u: CurrentUser) => `${u.via === 'local' ? 'cli' : u.via === 'token' ? 'token' : 'user'}:${u.username}`;

export const SESSION_COOKIE = 'crucible_session';

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/** Resolve the caller from `Authorization: Bearer crc_…` or the session cookie. */
export async function identify(db: Db, headers: Headers): Promise<CurrentUser | null> {
  const auth = headers.get('authorization');
  if (auth?.toLowerCase().startsWith('bearer ')) {
    const token = auth.slice(7).trim();
    const [row] = await db
      .select({ tokenId: apiTokens.id, id: users.id, username: users.username, role: users.role, displayName: users.displayName })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(and(eq(apiTokens.tokenHash, sha256(token)), isNull(apiTokens.revokedAt), isNull(users.disabled)))
      .limit(1);
    if (!row) return null;
    await db.update(apiTokens).set({ lastUsedAt: new Date() }).where(eq(apiTokens.id, row.tokenId));
    return { id: row.id, username: row.username, role: row.role, displayName: row.displayName, via: 'token' };
  }
  const cookie = cookieValue(headers.get('cookie'), SESSION_COOKIE);
  if (!cookie) return null;
  const [row] = await db
    .select({ id: users.id, username: users.username, role: users.role, displayName: users.displayName, mustChangePassword: users.mustChangePassword })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256(cookie)), gt(sessions.expiresAt, new Date()), isNull(users.disabled)))
    .limit(1);
  return row ? { ...row, via: 'session' } : null;
}
