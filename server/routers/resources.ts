import { resourceOverview, resourceSeries, seriesInput } from '@/server/resources/service';
import { router, viewerProcedure } from '@/server/trpc';

export const resourcesRouter = router({
  overview: viewerProcedure.query(({ ctx }) => resourceOverview(ctx.db)),
  series: viewerProcedure.input(seriesInput).query(({ ctx, input }) => resourceSeries(ctx.db, input)),
});
