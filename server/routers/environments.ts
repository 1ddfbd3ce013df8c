import { z } from 'zod';
import { environmentName as name } from '@/core/environments';
import { actorOf } from '@/server/auth/identity';
import { adminProcedure, router, viewerProcedure } from '@/server/trpc';
import { listEnvironments, setQuarantine } from '@/server/reviews/environments';

export const environmentsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listEnvironments(ctx.db)),
  quarantine: adminProcedure
    .input(z.object({ name, reason: z.string().max(1000).optional() }))
    .mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, true, actorOf(ctx.user), input.reason)),
  clear: adminProcedure.input(z.object({ name })).mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, false, actorOf(ctx.user))),
});
