import { z } from 'zod';
import { roleSchema } from '@/core/roles';
import { actorOf } from '@/server/auth/identity';
import { adminProcedure, router } from '@/server/trpc';
import { createUser, disableUser, enableUser, listUsers, newUserSchema, resetPassword, setRole, usernameSchema } from '@/server/users/service';

export const usersRouter = router({
  list: adminProcedure.query(({ ctx }) => listUsers(ctx.db)),
  create: adminProcedure.input(newUserSchema).mutation(({ ctx, input }) => createUser(ctx.db, input, actorOf(ctx.user))),
  setRole: adminProcedure
    .input(z.object({ username: usernameSchema, role: roleSchema }))
    .mutation(({ ctx, input }) => setRole(ctx.db, input.username, input.role, actorOf(ctx.user))),
  /** Returns a one-time password, shown once; the user must change it at next sign-in. Revokes their API tokens unless told not to. */
  resetPassword: adminProcedure
    .input(z.object({ username: usernameSchema, revokeTokens: z.boolean().default(true) }))
    .mutation(({ ctx, input }) => resetPassword(ctx.db, input.username, actorOf(ctx.user), ctx.user.id, { revokeTokens: input.revokeTokens })),
  disable: adminProcedure.input(z.object({ username: usernameSchema })).mutation(({ ctx, input }) => disableUser(ctx.db, input.username, actorOf(ctx.user))),
  /** Lets a disabled user sign in again (their revoked tokens stay revoked). */
  enable: adminProcedure.input(z.object({ username: usernameSchema })).mutation(({ ctx, input }) => enableUser(ctx.db, input.username, actorOf(ctx.user))),
});
