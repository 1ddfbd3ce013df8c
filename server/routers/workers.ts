import { workerDetail, workerIdInput, workersListInput, workersOverview } from '@/server/workers/overview';
import { sharedClusterSnapshot } from '@/server/resources/service';
import { router, viewerProcedure } from '@/server/trpc';

export const workersRouter = router({
  /**
   * Registered workers grouped by host, each with its own CPU and memory and the jobs it holds
   * the lease of now (the jobs table, the source the queue itself trusts: a job runs where its
   * lease is); `activity` is the same live snapshot `resources.overview` reports.
   */
  list: viewerProcedure.input(workersListInput).query(async ({ ctx, input }) => workersOverview(ctx.db, input, await sharedClusterSnapshot(ctx.db))),
  /** One worker: its figures, current jobs, busy sandboxes and recent log lines. */
  get: viewerProcedure.input(workerIdInput).query(({ ctx, input }) => workerDetail(ctx.db, input.id)),
});
