import type { ClaimedJob } from '@/server/queue';
import { tryRunTransition } from '@/server/runs/lifecycle';
import { PermanentJobError, validatedPayload, type JobHandler } from '@/workers/jobs/job-handler';

/**
 * A run whose RL job cannot succeed (a refused checkpoint, a missing runtime, the last
 * retry spent) must say so: the job completes with an effect that fails the run with the
 * reason, instead of dead-lettering silently while the run shows "running" forever.
 */
export function failRunOnGiveUp(handler: JobHandler): JobHandler {
  return {
    ...handler,
    // The payload is checked here, not by the job loop: a bad payload is a give-up like any
    // other, so the run fails with the reason instead of running on with its job dead.
    payload: undefined,
    run: async (job: ClaimedJob, ctx) => {
      try {
        return await handler.run({ ...job, payload: validatedPayload(handler, job) }, ctx);
      } catch (err) {
        const lastTry = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
        const runId = typeof job.payload.runId === 'string' ? job.payload.runId : undefined;
        if (!lastTry || !runId || ctx.signal.aborted) throw err;
        const message = `${job.queue} gave up after ${job.attempts} attempt(s): ${(err as Error).message}`;
        ctx.log(`run ${runId} failed: ${message}`);
        // only a queued or running run fails (core/run-status.ts); one paused or cancelled meanwhile is left as it is
        return async (tx) => {
          await tryRunTransition(tx, runId, 'fail', `system:${job.queue}`, { message, error: message });
        };
      }
    },
  };
}
