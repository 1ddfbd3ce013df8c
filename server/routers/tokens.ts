import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { actorOf } from '@/server/auth/identity';
import { router, viewerProcedure } from '@/server/trpc';
import { createToken, listTokens, revokeToken } from '@/server/tokens/service';
import { usernameSchema } from '@/server/users/service';

/** Everyone manages their own tokens; admins may act for other users. */
export const tokensRouter = router({
  list: viewerProcedure.query(({ ctx }) => listTokens(ctx.db, ctx.user.role === 'admin' ? undefined : ctx.user.username)),
  create: viewerProcedure
    .input(z.object({ name: z.string().trim().min(1, 'name the token (what uses it?)').max(100), username: usernameSchema.optional() }))
    .mutation(({ ctx, input }) => {
      const username = input.username ?? ctx.user.username;
      if (username !== ctx.user.username && ctx.user.role !== 'admin') {
        throw new TRPCError({ code: 'FORBIDDEN', message: 'only admins can create tokens for other users' });
      }
      return createToken(ctx.db, username, input.name, actorOf(ctx.user));
    }),
  revoke: viewerProcedure
    .input(z.object({ id: z.uuid('id must be a token id (uuid)') }))
    .mutation(({ ctx, input }) => revokeToken(ctx.db, input.id, actorOf(ctx.user), ctx.user.role === 'admin' ? undefined : ctx.user.username)),
});
