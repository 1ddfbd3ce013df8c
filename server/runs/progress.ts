import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { episodes, runEvents, runs } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { asPhaseEvent, PHASE_EVENT_TYPE, type PhaseEventData } from '@/core/run-phases';

/** One phase event as the progress view reads it: when, and what (core/run-phases.ts). */
export type PhaseMark = { at: number; data: PhaseEventData };

/**
 * What the run page's progress panel needs in one read: the run's counters, the current
 * iteration's episodes by state (done = finished in any way), and its phase events (the
 * workers write them: workers/rl/phase-events.ts) from which the page names the step running
 * now and estimates the time left (components/runs/progress-estimate.ts).
 */
export async function runProgress(db: Db, runId: string) {
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
    })
    .from(runs)
    .where(eq(runs.id, runId));
  if (!run) throw new DomainError('NOT_FOUND', `no run ${runId}; list runs with \`crucible runs list\``);
  const [counts, events] = await Promise.all([
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
  ]);
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
    /** the server's clock, so the page's "for 12 s" and ETA do not depend on the browser's */
    now: Date.now(),
  };
}
export type RunProgress = Awaited<ReturnType<typeof runProgress>>;
