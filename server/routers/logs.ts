import { z } from 'zod';
import { router, viewerProcedure } from '@/server/trpc';
import { episodeTimeline, listLogs, logsListSchema } from '@/server/logs/service';

/** Log records from every host (server/logs): every signed-in role may read them, like runs and workers. */
export const logsRouter = router({
  /** Filtered records, newest first with `before` paging, or oldest first after a cursor (`after`, for follow). */
  list: viewerProcedure.input(logsListSchema).query(({ ctx, input }) => listLogs(ctx.db, input)),
  /** An episode's records, oldest first, with their time from the first one. */
  timeline: viewerProcedure
    .input(z.object({ episodeId: z.uuid('episodeId must be an episode id (a UUID)') }).strict())
    .query(({ ctx, input }) => episodeTimeline(ctx.db, input.episodeId)),
});
