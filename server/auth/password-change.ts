import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { sessions, users } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { passwordSchema } from '@/server/users/service';
import { actorOf, type CurrentUser } from './identity';
import { hashPassword, verifyPassword } from './passwords';
import { openSession } from './sessions';
import { attemptFailed, attemptSucceeded, beginAttempt } from './throttle';

export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1, 'enter your current password').max(200),
  newPassword: passwordSchema,
});

/**
 * A user changes their own password (the current one is required, and checked under the same
 * throttle as sign-in so a stolen session cannot be used to guess it). Every session of the
 * user ends; a caller signed in with a session gets a fresh one back (a new cookie, so the old
 * value is worthless even if it leaked). API tokens stay valid: they are separate credentials,
 * revoked on their own (or all at once by disabling the user).
 */
export async function changeOwnPassword(db: Db, caller: CurrentUser, input: z.input<typeof changePasswordSchema>, source: string) {
  const { currentPassword, newPassword } = changePasswordSchema.parse(input);
  if (!caller.id) {
    throw new DomainError(
      'BAD_REQUEST',
      'the local CLI is not a console user: change a password over the API (--url, --token) or reset it with `crucible users reset-password NAME`',
    );
  }
  const [user] = await db.select().from(users).where(eq(users.id, caller.id));
  if (!user || user.disabled) throw new DomainError('FORBIDDEN', 'this account is disabled; ask an admin');
  const attempt = await beginAttempt(db, { username: user.username, source });
  if (!(await verifyPassword(currentPassword, user.passwordHash))) {
    await attemptFailed(db, attempt);
    throw new DomainError('BAD_REQUEST', 'the current password is wrong; enter the password you signed in with');
  }
  await attemptSucceeded(db, attempt);
  if (newPassword === currentPassword) throw new DomainError('BAD_REQUEST', 'the new password must differ from the current one');
  const passwordHash = await hashPassword(newPassword);
  return db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, mustChangePassword: false }).where(eq(users.id, user.id));
    const ended = await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ id: sessions.id });
    const session = caller.via === 'session' ? await openSession(tx, user.id) : null;
    await appendAudit(tx, {
      actor: actorOf(caller),
      action: 'auth.password_changed',
      targetType: 'user',
      targetId: user.id,
      details: { username: user.username, sessionsEnded: ended.length, sessionReissued: !!session, wasForced: user.mustChangePassword },
    });
    return { session, sessionsEnded: ended.length };
  });
}
