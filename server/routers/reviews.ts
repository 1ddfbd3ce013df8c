import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { actorOf, type CurrentUser } from '@/server/auth/identity';
import { adminProcedure, reviewerProcedure, router, viewerProcedure } from '@/server/trpc';
import { getGuidelines, setGuidelines } from '@/server/reviews/guidelines';
import { VERDICTS } from '@/server/reviews/kappa';
import { claimNext, listQueue, releaseClaim, reviewItem } from '@/server/reviews/queue';
import { agreement, coverage, reliability, reviewerStats } from '@/server/reviews/stats';
import { limitedByBlindReview, runsBlindToReviewers } from '@/server/reviews/blind';
import { latestDiagnosis, submitVerdict } from '@/server/reviews/verdicts';

const reviewId = z.object({ id: z.uuid('id must be a review item id (uuid)') });

function reviewerIdOf(user: CurrentUser): string {
  if (!user.id) throw new TRPCError({ code: 'FORBIDDEN', message: 'reviews need a real user: sign in, or use the CLI with --url and a reviewer token' });
  return user.id;
}

export const reviewsRouter = router({
  queue: reviewerProcedure
    .input(
      z.object({
        runId: z.uuid().optional(),
        state: z.enum(['open', 'done', 'all']).default('open'),
        page: z.number().int().min(1).default(1),
        pageSize: z.number().int().min(1).max(200).default(50),
      }),
    )
    .query(({ ctx, input }) => listQueue(ctx.db, { ...input, viewerId: ctx.user.id, hideOwnBlindFromRunFilter: limitedByBlindReview(ctx.user) })),
  /**
   * Claim the next item (docs/reviews.md, "Claim order"). `exclude`: the items this reviewer
   * skipped; when only those are left, `id` is null and `skippedLeft` says how many.
   */
  claim: reviewerProcedure
    .input(
      z
        .object({
          runId: z.uuid('runId must be a run id (uuid)').optional(),
          exclude: z
            .array(z.uuid('exclude lists review item ids (uuids)'))
            .max(1000, 'exclude at most 1000 skipped items; drop the list to start over')
            .default([]),
        })
        .strict(),
    )
    .mutation(({ ctx, input }) => claimNext(ctx.db, reviewerIdOf(ctx.user), { ...input, blindHeldIgnoresRun: limitedByBlindReview(ctx.user) })),
  release: reviewerProcedure.input(reviewId).mutation(({ ctx, input }) => releaseClaim(ctx.db, input.id, reviewerIdOf(ctx.user))),
  item: reviewerProcedure.input(reviewId).query(({ ctx, input }) => reviewItem(ctx.db, input.id, { id: ctx.user.id, role: ctx.user.role })),
  submit: reviewerProcedure
    .input(
      z.object({
        id: z.uuid('id must be a review item id (uuid)'),
        verdict: z.enum(VERDICTS),
        correctedReward: z.number().min(0, 'a reward is between 0 and 1').max(1, 'a reward is between 0 and 1').nullish(),
        note: z.string().max(5000).nullish(),
      }),
    )
    .mutation(({ ctx, input }) =>
      submitVerdict(
        ctx.db,
        { reviewId: input.id, verdict: input.verdict, correctedReward: input.correctedReward, note: input.note },
        { id: reviewerIdOf(ctx.user), actor: actorOf(ctx.user) },
      ),
    ),
  /** Every version of a verdict, oldest first (withheld like the item's own history). */
  history: reviewerProcedure
    .input(reviewId)
    .query(async ({ ctx, input }) => (await reviewItem(ctx.db, input.id, { id: ctx.user.id, role: ctx.user.role })).history),
  /**
   * The re-runs a disputed verdict opened: pending until a job worker has run both. Withheld
   * (null) like the item's reward while the item is not revealed to this viewer: it names the episode.
   */
  diagnosis: reviewerProcedure
    .input(reviewId)
    .query(async ({ ctx, input }) =>
      (await reviewItem(ctx.db, input.id, { id: ctx.user.id, role: ctx.user.role })).revealed ? latestDiagnosis(ctx.db, input.id) : null,
    ),
  agreement: reviewerProcedure.input(z.object({ runId: z.uuid().optional() }).strict()).query(({ ctx, input }) => agreement(ctx.db, input.runId)),
  reviewers: reviewerProcedure.query(({ ctx }) => reviewerStats(ctx.db)),
  reliability: reviewerProcedure.input(z.object({ runId: z.uuid('runId must be a run id (uuid)') })).query(async ({ ctx, input }) => {
    // Verdicts by task say which way a reward erred (false negative: scored too low), so a
    // run with open blind items keeps them from reviewers like its reward figures.
    if (limitedByBlindReview(ctx.user) && (await runsBlindToReviewers(ctx.db, [input.runId])).has(input.runId))
      return { overall: null, byEnvHash: [], byTask: [], withheld: true };
    return { ...(await reliability(ctx.db, input.runId)), withheld: false };
  }),
  /** Coverage is shown on run pages to everyone who can read runs. */
  coverage: viewerProcedure
    .input(z.object({ runIds: z.array(z.uuid()).max(200).optional() }).strict())
    .query(({ ctx, input }) => coverage(ctx.db, input.runIds)),
  guidelines: reviewerProcedure.query(({ ctx }) => getGuidelines(ctx.db)),
  setGuidelines: adminProcedure
    .input(z.object({ text: z.string().trim().min(20, 'guidelines should say something (20+ characters)').max(50_000) }))
    .mutation(({ ctx, input }) => setGuidelines(ctx.db, input.text, actorOf(ctx.user))),
});
