import { and, asc, desc, eq, isNotNull } from 'drizzle-orm';
import { jobs, workers } from '@/db/schema';
import { router, viewerProcedure } from '@/server/trpc';

export const workersRouter = router({
  /**
   * Registered workers, each with the jobs it holds the lease of now (the jobs table, the
   * source the queue itself trusts: a job runs where its lease is).
   */
  list: viewerProcedure.query(async ({ ctx }) => {
    const [rows, running] = await Promise.all([
      ctx.db.select().from(workers).orderBy(desc(workers.heartbeatAt)).limit(500),
      ctx.db
        .select({ id: jobs.id, queue: jobs.queue, runId: jobs.runId, owner: jobs.leaseOwner, startedAt: jobs.startedAt, attempts: jobs.attempts })
        .from(jobs)
        .where(and(eq(jobs.state, 'running'), isNotNull(jobs.leaseOwner)))
        .orderBy(asc(jobs.startedAt))
        .limit(2000),
    ]);
    return rows.map((w) => ({ ...w, jobs: running.filter((j) => j.owner === w.id).map(({ owner: _owner, ...j }) => j) }));
  }),
});
