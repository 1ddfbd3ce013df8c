import { resourceOverview, resourceSeries, seriesInput, sharedClusterSnapshot } from '@/server/resources/service';
import { z } from 'zod';
import { runComputeUsage } from '@/server/compute/service';
import { router, viewerProcedure } from '@/server/trpc';

export const resourcesRouter = router({
  // the snapshot /workers reads too (sharedClusterSnapshot), so the pages agree
  overview: viewerProcedure.query(async ({ ctx }) => resourceOverview(ctx.db, await sharedClusterSnapshot(ctx.db))),
  /** One run's CPU- and GPU-seconds per phase so far (the run page's Compute section). */
  runCompute: viewerProcedure.input(z.object({ runId: z.uuid() }).strict()).query(({ ctx, input }) => runComputeUsage(ctx.db, input.runId)),
  series: viewerProcedure.input(seriesInput).query(({ ctx, input }) => resourceSeries(ctx.db, input)),
});
