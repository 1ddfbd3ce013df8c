'use client';
import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { SegmentedProgressBar, SegmentLegend } from './progress-bar';
import { formatDuration, progressView } from './progress-estimate';
import { progressSegments } from './progress-segments';

/**
 * What a run is doing now (its latest phase event and for how long), iteration k of n with
 * its episodes, a bar in segments (each iteration's training by its episodes, each held-out
 * evaluation by its tasks, k / N), and an ETA from the observed rates. Polls with the page
 * while the run is live; the "for 12 s" clock ticks between polls.
 */
export function RunProgress({ runId, live, refreshKey }: { runId: string; live: boolean; refreshKey: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.runs.progress.queryOptions({ id: runId }), refetchInterval: live ? 2_000 : false });
  const refetch = q.refetch;
  // the status or iteration moved (the page's run query saw it): read the phase again now
  useEffect(() => {
    void refetch();
  }, [refreshKey, refetch]);
  // the server's clock at fetch time, advanced by the browser's since (no skew between the two)
  const [tick, setTick] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setTick(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [live]);
  const data = q.data;
  const fetchedAt = q.dataUpdatedAt;
  const view = useMemo(() => (data ? progressView({ ...data, now: data.now + Math.max(0, tick - fetchedAt) }) : null), [data, tick, fetchedAt]);
  const bar = useMemo(() => (data ? progressSegments(data) : null), [data]);
  if (!view || !bar) return q.isError ? <p className="text-xs text-red-700">Could not read the run&apos;s progress: {q.error.message}</p> : null;
  const { overall, iterationEpisodes: it } = view;
  return (
    <div className="space-y-2" data-testid="run-progress">
      <p className="text-sm">
        <span className="text-slate-500">Now: </span>
        <span className="font-medium" data-testid="run-phase">
          {view.now}
        </span>
        {view.sinceMs != null && <span className="text-slate-500"> · for {formatDuration(view.sinceMs)}</span>}
      </p>
      <div className="flex flex-wrap gap-x-6 gap-y-1 text-xs text-slate-600">
        {view.iteration && <span data-testid="run-iteration">{view.iteration.replace(/^i/, 'I')}</span>}
        {it && (
          <span data-testid="iteration-episodes">
            this iteration: {it.done} / {it.total} episodes done{it.running ? ` (${it.running} running)` : ''}
          </span>
        )}
        <span data-testid="overall-episodes">
          overall: {overall.done} / {overall.total} episodes
        </span>
        <span data-testid="run-eta" title={rateNote(view)}>
          {etaText(view, live)}
        </span>
      </div>
      <SegmentedProgressBar segments={bar.segments} percent={bar.percent} label={`${bar.percent}% of the work`} />
      <div className="flex flex-wrap items-center gap-x-6 gap-y-1 text-xs text-slate-600">
        {bar.heldout.total > 0 && (
          <span data-testid="heldout-progress">
            held-out: {bar.heldout.done} / {bar.heldout.total} evaluations done
            {bar.current?.kind === 'heldout' && ` · now ${bar.current.label}: ${bar.current.done} / ${bar.current.total} tasks`}
          </span>
        )}
        <SegmentLegend />
      </div>
    </div>
  );
}

function etaText(v: ReturnType<typeof progressView>, live: boolean): string {
  if (v.etaMs == null) return live && v.iteration ? 'ETA: after the first episodes' : '';
  // a learner step past its usual time: what follows it is known, its own end is not
  if (v.stepOverdue)
    return v.etaMs >= 1000 ? `ETA ≥ ${formatDuration(v.etaMs)} (this step runs longer than the last)` : 'ETA: when this step ends (longer than the last)';
  return `ETA ${v.etaWithoutLearner ? '≥ ' : '≈ '}${formatDuration(v.etaMs)}`;
}

/** The rates behind the ETA, for its tooltip. */
function rateNote(v: ReturnType<typeof progressView>): string {
  const parts = [];
  if (v.episodesPerSecond != null) parts.push(`${v.episodesPerSecond.toFixed(2)} episodes/s while sampling`);
  parts.push(v.learnerMs != null ? `learner step ≈ ${formatDuration(v.learnerMs)}` : 'no learner step timed yet (not in the ETA)');
  return parts.join('; ');
}
