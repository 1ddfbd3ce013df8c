import { sql } from 'drizzle-orm';
import { runs } from '@/db/schema';
import type { ClaimedJob } from '@/server/queue';
import { PermanentJobError, type JobHandler } from '@/workers/jobs/handler';
import { runEvent } from './schedule';

/**
 * A run whose RL job cannot succeed (a refused checkpoint, a missing runtime, the last
 * retry spent) must say so: the job completes with an effect that fails the run with the
 * reason, instead of dead-lettering silently while the run shows "running" forever.
 */
export function failRunOnGiveUp(handler: JobHandler): JobHandler {
  return {
    ...handler,
    run: async (job: ClaimedJob, ctx) => {
      try {
        return await handler.run(job, ctx);
      } catch (err) {
        const lastTry = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
        const runId = typeof job.payload.runId === 'string' ? job.payload.runId : undefined;
        if (!lastTry || !runId || ctx.signal.aborted) throw err;
        const message = `${job.queue} gave up after ${job.attempts} attempt(s): ${(err as Error).message}`;
        ctx.log(`run ${runId} failed: ${message}`);
        return async (tx) => {
          const [r] = await tx.update(runs).set({ status: 'failed', error: message.slice(0, 2000), finishedAt: new Date(), updatedAt: new Date() })
            .where(sql`${runs.id} = ${runId} and ${runs.status} in ('queued', 'running')`).returning({ id: runs.id });
          if (r) await runEvent(tx, runId, 'failed', message.slice(0, 2000));
        };
      }
    },
  };
}
