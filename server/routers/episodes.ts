import { z } from 'zod';
import { router, viewerProcedure } from '@/server/trpc';
import { getEpisode, listEpisodes, listEpisodesSchema } from '@/server/episodes/service';

export const episodesRouter = router({
  list: viewerProcedure.input(listEpisodesSchema).query(({ ctx, input }) => listEpisodes(ctx.db, input)),
  get: viewerProcedure.input(z.object({ id: z.uuid('id must be an episode id (uuid)') })).query(({ ctx, input }) => getEpisode(ctx.db, input.id)),
});
