import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { roleSchema, type Role } from '@/core/roles';
import type { Db } from '@/db/client';
import { apiTokens, sessions, users } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { generatePassword, hashPassword } from '@/server/auth/passwords';
import { clearUsername } from '@/server/auth/throttle';
import { DomainError } from '@/server/errors';

export const usernameSchema = z
  .string()
  .min(2, 'username must be at least 2 characters')
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'username may use lowercase letters, digits, ".", "_" and "-"');
export const passwordSchema = z.string().min(10, 'password must be at least 10 characters').max(200);

export const newUserSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  role: roleSchema,
  displayName: z.string().max(120).optional(),
});

const publicColumns = {
  id: users.id,
  username: users.username,
  role: users.role,
  displayName: users.displayName,
  createdAt: users.createdAt,
  disabledAt: users.disabled,
  mustChangePassword: users.mustChangePassword,
};

export async function listUsers(db: Db) {
  return db.select(publicColumns).from(users).orderBy(asc(users.username));
}

export async function createUser(db: Db, input: z.input<typeof newUserSchema>, actor: string) {
  const u = newUserSchema.parse(input);
  return db.transaction(async (tx) => {
    const [exists] = await tx.select({ id: users.id }).from(users).where(eq(users.username, u.username));
    if (exists) throw new DomainError('CONFLICT', `user "${u.username}" already exists; pick another username`);
    const [row] = await tx
      .insert(users)
      .values({ username: u.username, role: u.role, displayName: u.displayName ?? null, passwordHash: await hashPassword(u.password) })
      .returning(publicColumns);
    await appendAudit(tx, { actor, action: 'user.create', targetType: 'user', targetId: row!.id, details: { username: u.username, role: u.role } });
    return row!;
  });
}

async function findUser(db: Db, username: string) {
  const [row] = await db.select().from(users).where(eq(users.username, username));
  if (!row) throw new DomainError('NOT_FOUND', `no user "${username}"; list users with \`crucible users list\``);
  return row;
}

export async function setRole(db: Db, username: string, role: Role, actor: string) {
  const user = await findUser(db, username);
  return db.transaction(async (tx) => {
    await tx.update(users).set({ role }).where(eq(users.id, user.id));
    await appendAudit(tx, { actor, action: 'user.set_role', targetType: 'user', targetId: user.id, details: { from: user.role, to: role } });
    return { username, role };
  });
}

/** Disabling also ends the user's sessions and revokes their tokens. */
export async function disableUser(db: Db, username: string, actor: string) {
  const user = await findUser(db, username);
  return db.transaction(async (tx) => {
    await tx.update(users).set({ disabled: new Date() }).where(eq(users.id, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
    await tx
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiTokens.userId, user.id), isNull(apiTokens.revokedAt)));
    await appendAudit(tx, { actor, action: 'user.disable', targetType: 'user', targetId: user.id, details: { username } });
    return { username, disabled: true };
  });
}

/**
 * Re-enable a disabled user: they can sign in again with their password. What disabling ended
 * stays ended: their sessions are gone and their API tokens stay revoked (issue new ones).
 */
export async function enableUser(db: Db, username: string, actor: string) {
  const user = await findUser(db, username);
  if (!user.disabled) throw new DomainError('CONFLICT', `user "${username}" is not disabled; nothing to re-enable`);
  return db.transaction(async (tx) => {
    // conditional, so two admins re-enabling at once write one audit row
    const [row] = await tx
      .update(users)
      .set({ disabled: null })
      .where(and(eq(users.id, user.id), isNotNull(users.disabled)))
      .returning({ id: users.id });
    if (!row) throw new DomainError('CONFLICT', `user "${username}" was re-enabled meanwhile`);
    await appendAudit(tx, {
      actor,
      action: 'user.enable',
      targetType: 'user',
      targetId: user.id,
      details: { username, disabledAt: user.disabled!.toISOString() },
    });
    return { username, disabled: false };
  });
}

/**
 * An admin resets someone's password: a generated one-time password, returned once (never
 * stored or audited in clear), which the user must replace at their next sign-in. All their
 * sessions end and their sign-in lockout is lifted. Their API tokens are revoked too unless
 * `revokeTokens` is false: a reset usually means the account may be compromised, and a token
 * minted by whoever held it would otherwise outlive the reset. `byUserId` is the admin's own
 * id: your own password you change with the current one (auth.changePassword), not by reset.
 */
export async function resetPassword(db: Db, username: string, actor: string, byUserId: string | null, o: { revokeTokens?: boolean } = {}) {
  const revokeTokens = o.revokeTokens ?? true;
  const user = await findUser(db, username);
  if (user.id === byUserId)
    throw new DomainError('BAD_REQUEST', 'you cannot reset your own password; change it on your Account page (current password required)');
  if (user.disabled) throw new DomainError('CONFLICT', `user "${username}" is disabled; a reset would not let them sign in`);
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, mustChangePassword: true }).where(eq(users.id, user.id));
    const ended = await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ id: sessions.id });
    const revoked = revokeTokens
      ? await tx
          .update(apiTokens)
          .set({ revokedAt: new Date() })
          .where(and(eq(apiTokens.userId, user.id), isNull(apiTokens.revokedAt)))
          .returning({ id: apiTokens.id })
      : [];
    // Before the audit append: throttle rows are always locked before the audit chain lock.
    await clearUsername(tx, user.username);
    await appendAudit(tx, {
      actor,
      action: 'user.password_reset',
      targetType: 'user',
      targetId: user.id,
      details: { username, sessionsEnded: ended.length, tokensRevoked: revoked.length, tokensKept: !revokeTokens },
    });
    return { username, password, mustChangePassword: true, sessionsEnded: ended.length, tokensRevoked: revoked.length };
  });
}

/**
 * First start: create `admin` with CRUCIBLE_ADMIN_PASSWORD or a generated password, which
 * is returned once for the console to print. Later starts do nothing.
 */
export async function ensureInitialAdmin(db: Db, adminPassword: string | undefined): Promise<{ created: boolean; username: string; password?: string }> {
  const [any] = await db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).limit(1);
  if (any) return { created: false, username: 'admin' };
  const password = adminPassword || generatePassword();
  try {
    await createUser(db, { username: 'admin', password, role: 'admin', displayName: 'Administrator' }, 'system:bootstrap');
  } catch (e) {
    // Another process bootstrapped concurrently.
    if (e instanceof DomainError && e.code === 'CONFLICT') return { created: false, username: 'admin' };
    throw e;
  }
  return { created: true, username: 'admin', password };
}
