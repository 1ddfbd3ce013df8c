import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { episodes, runEvents, runs, tasks } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { asPhaseEvent, PHASE_EVENT_TYPE, type PhaseEventData } from '@/core/run-phases';
import { rlSettings, runRlSettings, settings, type RlSettings } from '@/core/settings';

/** One phase event as the progress view reads it: when, and what (core/run-phases.ts). */
export type PhaseMark = { at: number; data: PhaseEventData };

/**
 * What the run page's progress panel needs in one read: the run's counters, the current
 * iteration's episodes by state (done = finished in any way), and its phase events (the
 * workers write them: workers/rl/phase-events.ts) from which the page names the step running
 * now and estimates the time left (components/runs/progress-estimate.ts); and its held-out
 * evaluation plan (tasks per version, pass@k, whether each iteration's version is evaluated)
 * from the run's `heldout` settings over the deployment's `rl`, for the progress bar's
 * held-out segments (components/runs/progress-segments.ts).
 */
export async function runProgress(db: Db, runId: string, rl: Pick<RlSettings, 'heldoutLimit' | 'passAtK' | 'passAtKEvery'> = rlSettings(settings())) {
  const [run] = await db
    .select({
      status: runs.status,
      currentIteration: runs.currentIteration,
      episodesDone: runs.episodesDone,
      episodesTotal: runs.episodesTotal,
      config: runs.config,
      createdAt: runs.createdAt,
      startedAt: runs.startedAt,
      finishedAt: runs.finishedAt,
      phaseProgress: runs.phaseProgress,
      suiteId: runs.suiteId,
    })
    .from(runs)
    .where(eq(runs.id, runId));
  if (!run) throw new DomainError('NOT_FOUND', `no run ${runId}; list runs with \`crucible runs list\``);
  const [counts, events, [heldoutTasks] = []] = await Promise.all([
    db
      .select({ status: episodes.status, n: sql<number>`count(*)::int` })
      .from(episodes)
      .where(and(eq(episodes.runId, runId), eq(episodes.iteration, run.currentIteration)))
      .groupBy(episodes.status),
    db
      .select({ at: runEvents.at, type: runEvents.type, data: runEvents.data })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), eq(runEvents.type, PHASE_EVENT_TYPE)))
      .orderBy(asc(runEvents.id)),
    run.suiteId
      ? db
          .select({ n: sql<number>`count(*)::int` })
          .from(tasks)
          .where(and(eq(tasks.suiteId, run.suiteId), eq(tasks.split, 'heldout')))
      : Promise.resolve([]),
  ]);
  // the run's own held-out settings over the deployment's (what workers/rl evaluates with)
  const h = runRlSettings(rl, run.config);
  const inSuite = heldoutTasks?.n ?? 0;
  const n = (...statuses: string[]) => counts.filter((c) => statuses.includes(c.status)).reduce((a, c) => a + c.n, 0);
  const phases: PhaseMark[] = events.flatMap((e) => {
    const data = asPhaseEvent(e);
    return data ? [{ at: e.at.getTime(), data }] : [];
  });
  return {
    status: run.status,
    iterations: run.config.iterations,
    currentIteration: run.currentIteration,
    episodesPerIteration: run.config.tasksPerIteration * run.config.groupSize,
    episodesDone: run.episodesDone,
    episodesTotal: run.episodesTotal,
    iteration: {
      total: counts.reduce((a, c) => a + c.n, 0),
      pending: n('pending'),
      running: n('running'),
    },
    createdAt: run.createdAt.getTime(),
    startedAt: run.startedAt?.getTime() ?? null,
    finishedAt: run.finishedAt?.getTime() ?? null,
    phases,
    phaseProgress: run.phaseProgress ?? null,
    heldout: {
      tasks: h.heldoutLimit > 0 ? Math.min(inSuite, h.heldoutLimit) : inSuite,
      passAtK: h.passAtK,
      passAtKEvery: h.passAtKEvery,
      // a control arm (learning rate 0) keeps v0's weights: its later versions are not evaluated again
      perIteration: run.config.learningRate > 0,
    },
    /** the server's clock, so the page's "for 12 s" and ETA do not depend on the browser's */
    now: Date.now(),
  };
}
export type RunProgress = Awaited<ReturnType<typeof runProgress>>;
