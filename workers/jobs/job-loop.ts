import type { Db, Sql } from '@/db/client';
import { PREEMPT_CHANNEL } from '@/core/queues';
import { at } from '@/core/must';
import { claim, complete, fail, heartbeatLease, JobWakeup, releaseLease, yieldPreempted, type ClaimedJob } from '@/server/queue';
import { lineLogger, withContext, type Logger } from '@/server/logs/logger';
import { addRunCompute } from '@/server/compute/service';
import { jobComputePhase, type ComputeUsage } from '@/core/compute';
import { processMeter, type CpuMeter } from '@/lib/compute/meter';
import { DEFAULT_LEASE_MS, PermanentJobError, validatedPayload, type JobHandler } from './job-handler';

export type JobLoopOptions = {
  db: Db;
  sql: Sql;
  workerId: string;
  handlers: JobHandler[];
  /** Jobs run at once by this process. */
  concurrency: number;
  /** Polling fallback when no NOTIFY comes (retries whose backoff ended, expired leases). */
  pollMs: number;
  /** On stop, how long in-flight jobs may run on before their leases are released. */
  drainMs: number;
  signal: AbortSignal;
  log: (message: string) => void;
  /**
   * The process's structured logger: each job's lifecycle (claimed, done, failed, lease lost,
   * re-queued) is logged through a child bound to the job id and the payload's run and episode,
   * and handlers get that child as `ctx.logger`. Without one, those lines go to `log`.
   */
  logger?: Logger;
  /**
   * The scheduler node this process belongs to: it then also claims scheduled jobs admitted
   * to that node, and stops any of them the scheduler preempts (docs/scheduler.md).
   */
  node?: string;
  /** Measures each job's CPU per phase (lib/compute/meter.ts); the process's own by default. */
  meter?: CpuMeter;
};

/** Admitted jobs claimed per queue at once (more come on the next round). */
const ADMITTED_BATCH = 16;

type InFlight = { done: Promise<void>; release: () => Promise<void>; preempt: (reason: string) => void };

/**
 * Claim and run jobs for the handlers' queues until `signal` aborts, then drain: let
 * in-flight jobs finish for up to `drainMs`, abort the rest and release their leases
 * (not counted as attempts) so another worker takes them at once.
 */
export async function runJobLoop(o: JobLoopOptions): Promise<void> {
  if (o.handlers.length === 0) {
    o.log('no job handlers registered: idle until stopped');
    await new Promise<void>((resolve) => (o.signal.aborted ? resolve() : o.signal.addEventListener('abort', () => resolve(), { once: true })));
    return;
  }
  const wakeup = await JobWakeup.listen(
    o.sql,
    o.handlers.map((h) => h.queue),
  );
  const inFlight = new Map<number, InFlight>();
  // Jobs the scheduler admitted to this node are bounded by the node's capacity (that is what
  // admission means), so only the others count against `concurrency`.
  const admitted = new Set<number>();
  const unadmittedCount = () => inFlight.size - admitted.size;
  let finished: (() => void) | undefined;
  let turn = 0;
  // The fast path of preemption: the scheduler NOTIFYs the job id; the heartbeat is the fallback.
  const preemptListener = o.node
    ? await o.sql.listen(PREEMPT_CHANNEL, (payload) => inFlight.get(Number(payload))?.preempt('preempted by the scheduler'))
    : undefined;
  o.log(`processing ${o.handlers.map((h) => h.queue).join(', ')} (concurrency ${o.concurrency}${o.node ? `, node ${o.node}` : ''})`);
  const start = (handler: JobHandler, job: ClaimedJob, isAdmitted: boolean) => {
    const run = execute(o, handler, job);
    inFlight.set(job.id, run);
    if (isAdmitted) admitted.add(job.id);
    void run.done.finally(() => {
      inFlight.delete(job.id);
      admitted.delete(job.id);
      finished?.();
    });
  };
  const tryClaim = async (handler: JobHandler, limit: number, only?: 'admitted' | 'unadmitted') => {
    try {
      return await claim(o.db, { queues: [handler.queue], owner: o.workerId, leaseMs: handler.leaseMs ?? DEFAULT_LEASE_MS, limit, node: o.node, only });
    } catch (e) {
      o.log(`claim on ${handler.queue} failed: ${(e as Error).message}`);
      return [];
    }
  };
  try {
    while (!o.signal.aborted) {
      const mark = wakeup.mark();
      // Taken before claiming, like the wake-up mark: a job finishing meanwhile is not missed.
      const slotFreed = new Promise<void>((resolve) => (finished = resolve));
      let claimed = 0;
      // Rotate the starting queue so one busy queue cannot starve the others.
      turn = (turn + 1) % o.handlers.length;
      for (let i = 0; i < o.handlers.length && !o.signal.aborted; i++) {
        const handler = at(o.handlers, (turn + i) % o.handlers.length, 'a job handler');
        if (o.node) {
          const jobs = await tryClaim(handler, ADMITTED_BATCH, 'admitted');
          for (const job of jobs) start(handler, job, true);
          claimed += jobs.length;
        }
        const free = o.concurrency - unadmittedCount();
        if (free > 0) {
          const jobs = await tryClaim(handler, free, o.node ? 'unadmitted' : undefined);
          for (const job of jobs) start(handler, job, false);
          claimed += jobs.length;
        }
      }
      // Full, or nothing to claim: wait for news (NOTIFY), a finished job, or the poll timeout.
      if (claimed === 0) {
        const stopWaiting = new AbortController();
        await Promise.race([wakeup.wait(mark, o.pollMs, AbortSignal.any([o.signal, stopWaiting.signal])), slotFreed]);
        stopWaiting.abort(); // drop the wake-up timer when a finished job ended the wait
      }
    }
  } finally {
    await preemptListener?.unlisten().catch(() => {});
    await wakeup.close();
    if (inFlight.size > 0) {
      o.log(`stopping: waiting up to ${o.drainMs} ms for ${inFlight.size} job(s)`);
      const drained = await Promise.race([
        Promise.all([...inFlight.values()].map((f) => f.done)).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), o.drainMs)),
      ]);
      if (!drained) {
        const left = [...inFlight.entries()];
        o.log(`releasing ${left.length} unfinished job(s): ${left.map(([id]) => id).join(', ')}`);
        await Promise.all(left.map(([, f]) => f.release()));
      }
    }
  }
}

/**
 * Run one claimed job: heartbeat its lease, then complete (with its effect) or fail it.
 * A preempted job is stopped through `ctx.signal` and handed back to the queue uncounted;
 * whatever its handler returns after that is discarded, so only a full run commits an effect.
 */
function execute(o: JobLoopOptions, handler: JobHandler, job: ClaimedJob): InFlight {
  const leaseMs = handler.leaseMs ?? DEFAULT_LEASE_MS;
  const idOf = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const logger = withContext(o.logger ?? lineLogger(o.log), { job: job.id, run: idOf(job.payload.runId), episode: idOf(job.payload.episodeId) }).child({
    queue: handler.queue,
  });
  const t0 = performance.now();
  const runId = idOf(job.payload.runId) ?? job.runId ?? undefined;
  const runNote = runId ? `, run ${runId}` : '';
  logger.info(
    { attempt: job.attempts, maxAttempts: job.maxAttempts },
    `job ${job.id} claimed: ${handler.queue} (attempt ${job.attempts}/${job.maxAttempts}${runNote})`,
  );
  // the job's CPU (its process share, its sandboxes) per phase, committed with its effect
  const ledger = (o.meter ?? processMeter).start(jobComputePhase(handler.queue));
  const cpuTotal = (u: ComputeUsage) => Object.values(u.cpu).reduce((a, v) => a + v, 0);
  const ac = new AbortController();
  let lost = false;
  let released = false;
  let preempted: string | null = null;
  // Once complete/fail runs, they check the lease themselves; later renewals say nothing.
  let settling = false;
  const preempt = (reason: string) => {
    if (preempted || settling || lost || released) return;
    preempted = reason;
    logger.warn({ reason }, `job ${job.id}: ${reason}, stopping it`);
    ac.abort(new Error(`preempted: ${reason}`));
  };
  const beat = setInterval(
    () => {
      heartbeatLease(o.db, job.id, job.leaseToken, leaseMs)
        .then((b) => {
          if (b.preempted) return preempt(b.preempted);
          if (b.expiresAt || lost || settling) return;
          lost = true;
          logger.warn(`job ${job.id}: lease lost, abandoning it`);
          ac.abort(new Error('lease lost'));
        })
        // A failed renewal is retried next beat; if the lease runs out, fencing protects us.
        .catch((e) => logger.warn(`job ${job.id}: lease renewal failed: ${(e as Error).message}`));
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );

  const yieldBack = async () => {
    const ok = await yieldPreempted(o.db, job.id, job.leaseToken).catch((e) => {
      logger.warn(`job ${job.id}: could not hand the preempted job back: ${(e as Error).message}`);
      return false;
    });
    logger.info({ requeued: ok }, `job ${job.id}: ${ok ? 'stopped and re-queued after preemption' : 'preempted, but the lease was already gone'}`);
  };

  const done = (async () => {
    try {
      // a payload that does not fit its kind's schema never reaches the handler
      const payload = validatedPayload(handler, job);
      const effect = await (o.meter ?? processMeter).run(ledger, () =>
        handler.run({ ...job, payload }, { db: o.db, workerId: o.workerId, signal: ac.signal, log: o.log, logger }),
      );
      const usage = ledger.finish();
      if (lost || released) return;
      if (preempted) return await yieldBack();
      settling = true;
      const counted = runId !== undefined && cpuTotal(usage) + Object.values(usage.gpu).reduce((a, v) => a + v, 0) > 0;
      const r = await complete(
        o.db,
        job.id,
        job.leaseToken,
        effect || counted
          ? async (tx, row) => {
              const result = await effect?.(tx, row);
              if (counted) await addRunCompute(tx, runId, usage);
              return result;
            }
          : undefined,
      );
      const durationMs = Math.round(performance.now() - t0);
      const cpuSeconds = Math.round(cpuTotal(usage) * 1000) / 1000;
      if (!r.completed) logger.warn({ durationMs, cpuSeconds, reason: r.reason }, `job ${job.id}: not completed (${r.reason})`);
      else
        logger.info(
          { durationMs, cpuSeconds },
          `job ${job.id} finished: ${handler.queue} in ${formatMs(durationMs)}${runNote}, ${cpuSeconds.toFixed(2)} CPU-s`,
        );
    } catch (e) {
      ledger.finish();
      if (lost || released) return;
      if (preempted) return await yieldBack();
      settling = true;
      const permanent = e instanceof PermanentJobError;
      const r = await fail(o.db, job.id, job.leaseToken, e, { retry: !permanent, backoff: handler.backoff }).catch((err) => {
        logger.error(`job ${job.id}: could not record failure: ${(err as Error).message}`);
        return undefined;
      });
      if (r) {
        const fields = {
          durationMs: Math.round(performance.now() - t0),
          attempt: job.attempts,
          maxAttempts: job.maxAttempts,
          outcome: r.outcome,
          ...(r.outcome === 'retry' ? { retryInMs: r.retryInMs } : {}),
          error: String((e as Error)?.message ?? e),
        };
        // retried: a warning; dead-lettered: an error someone has to look at
        logger[r.outcome === 'dead' ? 'error' : 'warn'](
          fields,
          `job ${job.id} failed: ${handler.queue} after ${formatMs(fields.durationMs)}${runNote} (attempt ${job.attempts}/${job.maxAttempts}) → ${r.outcome}${r.outcome === 'retry' ? ` in ${r.retryInMs} ms` : ''}: ${fields.error}`,
        );
      }
    } finally {
      ledger.finish();
      clearInterval(beat);
    }
  })();

  const release = async () => {
    released = true;
    ac.abort(new Error('worker stopping'));
    clearInterval(beat);
    logger.info(`job ${job.id}: released unfinished (worker stopping)`);
    await releaseLease(o.db, job.id, job.leaseToken).catch((e) => logger.warn(`job ${job.id}: release failed: ${(e as Error).message}`));
  };
  return { done, release, preempt };
}

/** "850 ms", "12.3 s", "4 min 5 s": a job's duration as its log line says it. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
