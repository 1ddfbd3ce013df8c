import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { apiTokens, users } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { newApiToken, sha256 } from '@/server/auth/secrets';
import { DomainError } from '@/server/errors';

/** Create a token for `username`; the secret is returned once and only its sha256 is kept. */
export async function createToken(db: Db, username: string, name: string, actor: string) {
  const [user] = await db.select().from(users).where(eq(users.username, username));
  if (!user) throw new DomainError('NOT_FOUND', `no user "${username}"`);
  if (user.disabled) throw new DomainError('PRECONDITION_FAILED', `user "${username}" is disabled`);
  const token = newApiToken();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiTokens)
      .values({ userId: user.id, name, prefix: token.slice(0, 8), tokenHash: sha256(token) })
      .returning({ id: apiTokens.id, name: apiTokens.name, prefix: apiTokens.prefix, createdAt: apiTokens.createdAt });
    await appendAudit(tx, { actor, action: 'token.create', targetType: 'api_token', targetId: row!.id, details: { username, name } });
    return { ...row!, username, role: user.role, token };
  });
}

export async function listTokens(db: Db, username?: string) {
  const q = db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      username: users.username,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId));
  return (username ? q.where(eq(users.username, username)) : q).orderBy(desc(apiTokens.createdAt));
}

/** Revoke; non-admins may only revoke their own tokens (`onlyUsername`). */
export async function revokeToken(db: Db, id: string, actor: string, onlyUsername?: string) {
  const [row] = await db
    .select({ id: apiTokens.id, username: users.username })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
  if (!row || (onlyUsername && row.username !== onlyUsername)) throw new DomainError('NOT_FOUND', `no active token ${id}`);
  return db.transaction(async (tx) => {
    await tx.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, id));
    await appendAudit(tx, { actor, action: 'token.revoke', targetType: 'api_token', targetId: id });
    return { id, revoked: true };
  });
}
