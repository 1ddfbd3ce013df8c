import { z } from 'zod';
import { operatorProcedure, router, viewerProcedure } from '@/server/trpc';
import { exportEpisodes, exportEpisodesSchema } from '@/server/episodes/export';
import { getEpisode, listEpisodes, listEpisodesSchema } from '@/server/episodes/service';
import { assertNotBlindReviewing } from '@/server/reviews/blind';

/** Episode reads reveal rewards, runs and policies: refused to a reviewer with a blind item open. */
const episodeReader = viewerProcedure.use(async ({ ctx, next }) => {
  await assertNotBlindReviewing(ctx.db, ctx.user);
  return next();
});

/** Reviewers never see the reward of an episode whose blind review is still open (admins, operators and viewers do). */
const readOptions = (role: string) => ({ withholdBlindRewards: role === 'reviewer' });

/** Exports carry every reward: operators and admins, and not while they hold a blind review item. */
const episodeExporter = operatorProcedure.use(async ({ ctx, next }) => {
  await assertNotBlindReviewing(ctx.db, ctx.user);
  return next();
});

export const episodesRouter = router({
  export: episodeExporter.input(exportEpisodesSchema).query(({ ctx, input }) => exportEpisodes(ctx.db, input)),
  list: episodeReader.input(listEpisodesSchema).query(({ ctx, input }) => listEpisodes(ctx.db, input, readOptions(ctx.user.role))),
  get: episodeReader
    .input(z.object({ id: z.uuid('id must be an episode id (uuid)') }))
    .query(({ ctx, input }) => getEpisode(ctx.db, input.id, readOptions(ctx.user.role))),
});
