import { z } from 'zod';
import { environmentName as name } from '@/core/environments';
import { envGradeInput, envResetInput, envSessionInput, envStepInput } from '@/core/env-sessions';
import { actorOf, type CurrentUser } from '@/server/auth/identity';
import { can } from '@/core/roles';
import { adminProcedure, operatorProcedure, router, viewerProcedure } from '@/server/trpc';
import { listEnvironments, setQuarantine } from '@/server/reviews/environments';
import { closeEnvSession, getEnvSession, gradeEnvSession, resetEnvSession, stepEnvSession } from '@/server/env-sessions/service';

const sessionCaller = (u: CurrentUser) => ({ actor: actorOf(u), username: u.username, admin: can(u.role, 'manageUsers') });

export const environmentsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listEnvironments(ctx.db)),
  quarantine: adminProcedure
    .input(z.object({ name, reason: z.string().max(1000).optional() }))
    .mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, true, actorOf(ctx.user), input.reason)),
  clear: adminProcedure.input(z.object({ name })).mutation(({ ctx, input }) => setQuarantine(ctx.db, input.name, false, actorOf(ctx.user))),
  // The step API for other trainers (docs/agents.md): a session of one repository task.
  reset: operatorProcedure.input(envResetInput).mutation(({ ctx, input }) => resetEnvSession(ctx.db, input, actorOf(ctx.user))),
  // a session is its opener's (admins may use any)
  step: operatorProcedure.input(envStepInput).mutation(({ ctx, input }) => stepEnvSession(ctx.db, input, sessionCaller(ctx.user))),
  grade: operatorProcedure.input(envGradeInput).mutation(({ ctx, input }) => gradeEnvSession(ctx.db, input, sessionCaller(ctx.user))),
  close: operatorProcedure.input(envSessionInput).mutation(({ ctx, input }) => closeEnvSession(ctx.db, input.session, sessionCaller(ctx.user))),
  session: operatorProcedure.input(envSessionInput).query(({ ctx, input }) => getEnvSession(ctx.db, input.session, sessionCaller(ctx.user))),
});
