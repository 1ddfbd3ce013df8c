import { z } from 'zod';
import { environmentName as name } from '@/core/environments';
import { envGradeInput, envResetInput, envSessionInput, envStepInput } from '@/core/env-sessions';
import { actorOf } from '@/server/auth/identity';
import { adminProcedure, operatorProcedure, router, viewerProcedure } from '@/server/trpc';
import { listEnvironments, setQuarantine } from '@/server/reviews/environments';
import { closeEnvSession, getEnvSession, gradeEnvSession, resetEnvSession, stepEnvSession } from '@/server/env-sessions/service';

export const environmentsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listEnvironments(ctx.db)),
  quarantine: adminProcedure
    .input(z.object({ name, reason: z.string().max(1000).optional() }))
    .mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, true, actorOf(ctx.user), input.reason)),
  clear: adminProcedure.input(z.object({ name })).mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, false, actorOf(ctx.user))),
  // The step API for other trainers (docs/agents.md): a session of one repository task.
  reset: operatorProcedure.input(envResetInput).mutation(({ ctx, input }) => resetEnvSession(ctx.db, input, actorOf(ctx.user))),
  step: operatorProcedure.input(envStepInput).mutation(({ ctx, input }) => stepEnvSession(ctx.db, input)),
  grade: operatorProcedure.input(envGradeInput).mutation(({ ctx, input }) => gradeEnvSession(ctx.db, input)),
  close: operatorProcedure.input(envSessionInput).mutation(({ ctx, input }) => closeEnvSession(ctx.db, input.session, actorOf(ctx.user))),
  session: operatorProcedure.input(envSessionInput).query(({ ctx, input }) => getEnvSession(ctx.db, input.session)),
});
