import { z } from 'zod';
import { actorOf } from '@/server/auth/identity';
import { router, operatorProcedure, viewerProcedure } from '@/server/trpc';
import {
  cloneRun, compareRunMetrics, compareRunsSchema, createRun, getRun, listRunEvents, listRuns, listRunsSchema, listSuites, newRunSchema, runMetrics, runNameSchema, transitionRun,
} from '@/server/runs/service';
import { actionsFor, type RunStatus } from '@/server/runs/transitions';

const byId = z.object({ id: z.uuid('id must be a run id (uuid)') });

export const runsRouter = router({
  list: viewerProcedure.input(listRunsSchema).query(({ ctx, input }) => listRuns(ctx.db, input)),
  get: viewerProcedure.input(byId).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.id);
    return { ...run, allowedActions: actionsFor(run.status as RunStatus) };
  }),
  events: viewerProcedure.input(byId).query(({ ctx, input }) => listRunEvents(ctx.db, input.id)),
  metrics: viewerProcedure
    .input(z.object({ ids: z.array(z.uuid()).min(1).max(10), names: z.array(z.string().max(100)).max(100).optional() }))
    .query(({ ctx, input }) => runMetrics(ctx.db, input.ids, input.names)),
  /** Metrics of one or more runs with their names, for the run page and /runs/compare. */
  compare: viewerProcedure.input(compareRunsSchema).query(({ ctx, input }) => compareRunMetrics(ctx.db, input)),
  suites: viewerProcedure.query(({ ctx }) => listSuites(ctx.db)),
  create: operatorProcedure.input(newRunSchema).mutation(({ ctx, input }) => createRun(ctx.db, input, actorOf(ctx.user), ctx.user.id)),
  pause: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'pause', actorOf(ctx.user))),
  resume: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'resume', actorOf(ctx.user))),
  cancel: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'cancel', actorOf(ctx.user))),
  clone: operatorProcedure
    .input(byId.extend({ name: runNameSchema.optional() }))
    .mutation(({ ctx, input }) => cloneRun(ctx.db, input.id, actorOf(ctx.user), ctx.user.id, input.name)),
});
