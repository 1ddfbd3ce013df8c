import { z } from 'zod';
import type { Db } from '@/db/client';
import { actorOf, type CurrentUser } from '@/server/auth/identity';
import { router, operatorProcedure, viewerProcedure } from '@/server/trpc';
import {
  cloneRun,
  compareRunMetrics,
  compareRunsSchema,
  createRun,
  getRun,
  listRuns,
  listRunsSchema,
  listSuites,
  metricResolutionSchema,
  runMetrics,
  runNameSchema,
  transitionRun,
} from '@/server/runs/service';
import { actionsFor, type RunStatus } from '@/core/run-status';
import { defaultIsolation } from '@/core/sandbox-runtimes';
import { deploymentHosts } from '@/server/runs/deployment';
import { launchRunSchema, resolveLaunchIsolation } from '@/server/runs/launch-isolation';
import { checkLaunchQuota } from '@/server/runs/launch-quota';
import { runProgress } from '@/server/runs/progress';
import { listRunEventsPage, runEventsPageSchema } from '@/server/runs/run-events';
import { limitedByBlindReview, redactRewardEvent, runsBlindToReviewers } from '@/server/reviews/blind';

/**
 * Blind review (server/reviews/blind.ts, runBlindToReviewers): the runs whose reward-derived
 * data this caller may not see now. Empty for everyone but reviewers.
 */
const blindFor = (db: Db, user: CurrentUser, ids: string[]) =>
  limitedByBlindReview(user) ? runsBlindToReviewers(db, ids) : Promise.resolve(new Set<string>());

/** A run row with its reward figures withheld where `blind` has it (`rewardWithheld` says so). */
const withRewardOf = <R extends { id: string; lastRewardMean: number | null }>(run: R, blind: Set<string>) =>
  blind.has(run.id) ? { ...run, lastRewardMean: null, rewardWithheld: true } : { ...run, rewardWithheld: false };

const byId = z.object({ id: z.uuid('id must be a run id (uuid)') });

export const runsRouter = router({
  list: viewerProcedure.input(listRunsSchema).query(async ({ ctx, input }) => {
    const page = await listRuns(ctx.db, input);
    const blind = await blindFor(
      ctx.db,
      ctx.user,
      page.items.map((r) => r.id),
    );
    return { ...page, items: page.items.map((r) => withRewardOf(r, blind)) };
  }),
  get: viewerProcedure.input(byId).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.id);
    return { ...withRewardOf(run, await blindFor(ctx.db, ctx.user, [run.id])), allowedActions: actionsFor(run.status as RunStatus) };
  }),
  /** A page of the run's events, newest first; `nextCursor` asks for the older page (server/runs/run-events.ts). */
  events: viewerProcedure.input(runEventsPageSchema).query(async ({ ctx, input }) => {
    const [page, blind] = await Promise.all([listRunEventsPage(ctx.db, input), blindFor(ctx.db, ctx.user, [input.id])]);
    return blind.size ? { ...page, items: page.items.map(redactRewardEvent) } : page;
  }),
  /** What the run is doing now: its phase events and the current iteration's episodes (server/runs/progress.ts). */
  progress: viewerProcedure.input(byId).query(({ ctx, input }) => runProgress(ctx.db, input.id)),
  /**
   * Under blind review a reviewer gets no metric samples of a blind run at all: most series
   * (reward_mean/min/max, advantages, loss) are computed from the rewards.
   */
  metrics: viewerProcedure
    .input(
      z.object({
        ids: z.array(z.uuid()).min(1).max(10),
        names: z.array(z.string().max(100)).max(100).optional(),
        // downsampled to at most this many points per series (min/max kept); every sample when absent
        maxPoints: metricResolutionSchema.shape.maxPoints,
      }),
    )
    .query(async ({ ctx, input }) => {
      const [samples, blind] = await Promise.all([runMetrics(ctx.db, input.ids, input.names, input.maxPoints), blindFor(ctx.db, ctx.user, input.ids)]);
      return blind.size ? samples.filter((s) => !s.runId || !blind.has(s.runId)) : samples;
    }),
  /** Metrics of one or more runs with their names, for the run page and /runs/compare (withheld as in `metrics`). */
  compare: viewerProcedure.input(compareRunsSchema).query(async ({ ctx, input }) => {
    const [cmp, blind] = await Promise.all([compareRunMetrics(ctx.db, input), blindFor(ctx.db, ctx.user, input.ids)]);
    return {
      runs: cmp.runs.map((r) => ({ ...r, metricsWithheld: blind.has(r.id) })),
      samples: blind.size ? cmp.samples.filter((s) => !blind.has(s.runId)) : cmp.samples,
      downsampled: blind.size ? cmp.downsampled.filter((key) => !blind.has(key.split(':')[0]!)) : cmp.downsampled,
      maxPoints: cmp.maxPoints,
    };
  }),
  suites: viewerProcedure.query(({ ctx }) => listSuites(ctx.db)),
  /** What a launch can choose on this deployment: the runtimes its sandbox hosts have, and the risk-tier defaults. */
  launchOptions: viewerProcedure.query(async ({ ctx }) => {
    const deployment = await deploymentHosts(ctx.db);
    const defaults = defaultIsolation(deployment.available);
    return {
      runtimes: deployment.available,
      source: deployment.source,
      largest: deployment.largest,
      total: deployment.total,
      isolationDefaults: defaults.isolation,
      notes: defaults.notes,
    };
  }),
  create: operatorProcedure.input(launchRunSchema).mutation(async ({ ctx, input }) => {
    // unset risk tiers get this deployment's defaults; a named runtime no host has, or a quota
    // no host can hold, is refused now rather than failing or waiting once the run starts
    const deployment = await deploymentHosts(ctx.db);
    const { config, notes } = resolveLaunchIsolation(input.config, deployment);
    checkLaunchQuota(input.config.quota, deployment);
    return createRun(ctx.db, { ...input, config, launchNotes: notes }, actorOf(ctx.user), ctx.user.id);
  }),
  pause: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'pause', actorOf(ctx.user))),
  resume: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'resume', actorOf(ctx.user))),
  cancel: operatorProcedure.input(byId).mutation(({ ctx, input }) => transitionRun(ctx.db, input.id, 'cancel', actorOf(ctx.user))),
  clone: operatorProcedure.input(byId.extend({ name: runNameSchema.optional() })).mutation(async ({ ctx, input }) => {
    // a clone names both tiers and its quota (its source's): refused now if no host can serve them
    const [source, deployment] = await Promise.all([getRun(ctx.db, input.id), deploymentHosts(ctx.db)]);
    resolveLaunchIsolation(source.config, deployment);
    checkLaunchQuota(source.config.quota, deployment);
    return cloneRun(ctx.db, input.id, actorOf(ctx.user), ctx.user.id, input.name);
  }),
});
