import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runEvents, runs, tasks } from '@/db/schema';
import type { Tx } from '@/server/queue';
import { PHASE_EVENT_TYPE, phaseEventData, phaseMessage, type PhaseEventData, type PhaseProgress, type RunPhase } from '@/core/run-phases';
import { withComputePhase } from '@/lib/compute/meter';

/**
 * The RL loop's phase events (core/run-phases.ts): what a run is doing, from its first second.
 *
 * Start-up phases (SFT warm start, held-out evaluations, the learner step) run outside the
 * job's commit, for seconds to minutes, so their events are written at once, each insert its
 * own short transaction on the pool: a run page sees "SFT warm start started" while it runs,
 * and an event is not rolled back with a job that fails later. A retried job (next attempt,
 * or another worker after a lost lease) runs those phases again and writes them again under
 * its attempt number, worded as a retry; the same attempt never writes an event twice (each
 * carries a key, inserted only where absent). Phases that begin when a commit does (sampling
 * an iteration) are written in that commit's transaction, so they exist exactly once.
 */

type Writer = Db | Tx;
/** The job writing the events: its id and attempt (jobs.attempts, counted from 1 at claim). */
export type PhaseJob = { id: number; attempts: number; queue: string };
type RunRef = { id: string; suiteId: string | null; config: { iterations: number; tasksPerIteration: number; groupSize: number } };

async function writePhase(db: Writer, runId: string, actor: string, input: Omit<PhaseEventData, 'key'>, key: string) {
  const data = phaseEventData.parse({ ...input, key });
  const message = phaseMessage(data);
  // one event per key: the insert is skipped where one exists (a job attempt re-entering a phase)
  await db.execute(sql`
    insert into ${runEvents} (run_id, type, actor, message, data)
    select ${runId}, ${PHASE_EVENT_TYPE}, ${actor}, ${message}, ${JSON.stringify(data)}::jsonb
    where not exists (
      select 1 from ${runEvents} where run_id = ${runId} and type = ${PHASE_EVENT_TYPE} and data->>'key' = ${key}
    )`);
}

/** Held-out tasks an evaluation covers (the split, capped by CRUCIBLE_RL_HELDOUT_LIMIT when > 0). */
async function heldoutTaskCount(db: Db, suiteId: string | null, limit: number): Promise<number | undefined> {
  if (!suiteId) return undefined;
  const [row] = await db
    .select({ n: count() })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suiteId), eq(tasks.split, 'heldout')));
  const n = row?.n ?? 0;
  return limit > 0 ? Math.min(n, limit) : n;
}

/**
 * Phase events of one job attempt on one run, written as each phase starts and ends (on the
 * pool, outside the job's transaction). `sft` and `heldout` wrap the work they announce.
 */
export function jobPhases(db: Db, run: RunRef, job: PhaseJob, opts: { heldoutLimit: number }) {
  const actor = `system:${job.queue}`;
  const base = { iterations: run.config.iterations, attempt: job.attempts };
  const keyOf = (d: { phase: RunPhase; state: string; iteration?: number; subject?: string }) =>
    `job:${job.id}:${job.attempts}:${d.phase}:${d.state}:${d.iteration ?? '-'}:${d.subject ?? '-'}`;
  const write = (d: Omit<PhaseEventData, 'key' | 'iterations' | 'attempt'>) => writePhase(db, run.id, actor, { ...base, ...d }, keyOf(d));

  /** Run `work` between a started and a finished event of `phase` (a failure leaves the started one: the retry's events follow it). */
  async function track<T>(d: Omit<PhaseEventData, 'key' | 'state'>, work: () => Promise<T>, result: (r: T) => Partial<PhaseEventData>): Promise<T> {
    await write({ ...d, state: 'started' });
    const t0 = performance.now();
    const r = await work();
    await write({ ...d, ...result(r), state: 'finished', durationMs: Math.round(performance.now() - t0) });
    return r;
  }

  return {
    /** A phase that ends with the job's commit (learning ends with "iteration k of n trained"). */
    started: (phase: RunPhase, iteration?: number) => write({ phase, iteration, state: 'started' }),
    sft: <T extends { steps: number; loss: number | null }>(steps: number, work: () => Promise<T>) =>
      track(
        { phase: 'sft', steps },
        () => withComputePhase('learning', work),
        (r) => ({ steps: r.steps, loss: r.loss }),
      ),
    /** `work` gets a callback to report each task evaluated: the run page shows k / N tasks and the time left. */
    heldout: async <T extends { passAt1: number; tasks: number }>(
      subject: string,
      work: (onTask: (done: number, total: number) => Promise<void>) => Promise<T>,
      iteration?: number,
    ) => {
      const d = { phase: 'heldout_eval' as const, subject, iteration, tasks: await heldoutTaskCount(db, run.suiteId, opts.heldoutLimit) };
      const key = keyOf({ ...d, state: 'started' });
      const onTask = async (done: number, total: number) => {
        const progress: PhaseProgress = { key, done, total };
        await db.update(runs).set({ phaseProgress: progress }).where(eq(runs.id, run.id));
      };
      return track(
        d,
        // its CPU and its sandboxes' count as held-out evaluation (core/compute.ts)
        () => withComputePhase('heldout_eval', () => work(onTask)),
        (r) => ({ passAt1: r.passAt1, tasks: r.tasks }),
      );
    },
  };
}

/**
 * "iteration k of n: sampling N episodes", in the transaction that starts the iteration (the
 * run's start, or the previous iteration's learner commit), so it commits exactly with it.
 */
export async function samplingStarted(tx: Tx, run: RunRef, iteration: number, actor: string) {
  if (iteration >= run.config.iterations) return;
  await writePhase(
    tx,
    run.id,
    actor,
    {
      phase: 'sampling',
      state: 'started',
      iteration,
      iterations: run.config.iterations,
      episodes: run.config.tasksPerIteration * run.config.groupSize,
    },
    `sampling:${iteration}`,
  );
}
