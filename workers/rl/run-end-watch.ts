import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';
import { isTerminal } from '@/core/run-status';

/** Thrown into long phases of a job whose run ended meanwhile (cancelled, failed or completed). */
export class RunEnded extends Error {
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
    super(`run ${runId} is ${status}; stopped the work it no longer needs`);
    this.name = 'RunEnded';
  }
}

/**
 * A signal that aborts once the run reaches a terminal status, or when `signal` (the job's own:
 * preemption, a lost lease) does. Start-up and learner phases take minutes (SFT, held-out
 * evaluation, training), and a cancel only changes the run's row: without this the job ran
 * them to the end on a cancelled run, holding the CPU for work nobody reads. Polls the run
 * row every `everyMs`; call `stop()` when the phase is over.
 */
export function watchRunEnd(db: Db, runId: string, o: { signal?: AbortSignal; everyMs?: number } = {}) {
  const ended = new AbortController();
  let polling = false;
  const timer = setInterval(() => {
    if (polling || ended.signal.aborted) return;
    polling = true;
    db.select({ status: runs.status })
      .from(runs)
      .where(eq(runs.id, runId))
      .then(([r]) => {
        if (!r || isTerminal(r.status)) ended.abort(new RunEnded(runId, r?.status ?? 'deleted'));
      })
      // a failed poll is retried next tick; the job's lease fencing covers a lost database
      .catch(() => {})
      .finally(() => (polling = false));
  }, o.everyMs ?? 2000);
  timer.unref();
  return {
    signal: o.signal ? AbortSignal.any([ended.signal, o.signal]) : ended.signal,
    /** Why the run's work stopped, when it ended; null while it is still wanted. */
    ended: (): RunEnded | null => (ended.signal.aborted ? (ended.signal.reason as RunEnded) : null),
    stop: () => clearInterval(timer),
  };
}
