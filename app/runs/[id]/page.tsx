'use client';
import Link from 'next/link';
import { useCallback, useMemo } from 'react';
import { useParams } from 'next/navigation';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { errorCode } from '@/components/api-error';
import { StatusBadge } from '@/components/ui/status-badge';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { Facts, PageHeader, Section } from '@/components/ui/layout-parts';
import { RunAlertBanner } from '@/components/alerts/run-alert-banner';
import { ArmDifferenceTable } from '@/components/runs/arm-difference-table';
import { RunActions } from '@/components/runs/run-actions';
import { EventTimeline } from '@/components/runs/event-timeline';
import { MetricCharts, runSections, type FullCharts, type XContext } from '@/components/runs/metric-charts';
import { tokensLookup } from '@/components/runs/charts/chart-view';
import { ComparePicker } from '@/components/runs/compare-picker';
import { EpisodeTable } from '@/components/runs/episode-table';
import { ConfigView } from '@/components/runs/config-view';
import { PolicySummary } from '@/components/runs/policy-summary';
import { RunProgress } from '@/components/runs/run-progress';
import { ComputeUsage } from '@/components/runs/compute-usage';
import { RunReviewPanel } from '@/components/review/run-review-panel';
import { isActive } from '@/core/run-status';
import { useOnChange } from '@/components/ui/use-on-change';
import { formatDateTime, formatNumber, timeAgo } from '@/components/display-format';

// While a run is active its status, events and tables refresh on this period, without reloading.
const LIVE_MS = 3_000;
// Metrics change once an iteration: they are fetched again whenever the iteration moves (the
// status poll sees it) and otherwise polled slowly, so a live page does not redraw its charts
// every few seconds.
const METRICS_MS = 15_000;

export default function RunPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.runs.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? LIVE_MS : false),
  });
  // A run launched with a control arm: the other arm (the control, or the run it controls) is
  // fetched with it and drawn on the reward and pass-rate charts.
  const arms = run.data?.arms ?? null;
  const other = arms ? (arms.main.id === id ? arms.control : arms.main) : null;
  const live = !!run.data && (isActive(run.data.status) || (!!other && isActive(other.status)));
  // Newest page first, older pages on request ("Load older events"). A refetch (the live poll)
  // re-reads every loaded page from the newest, each from the one before's cursor, so new
  // events push the older ones down without repeating or losing any.
  const events = useInfiniteQuery({
    ...trpc.runs.events.infiniteQueryOptions({ id }, { getNextPageParam: (page) => page.nextCursor }),
    enabled: run.isSuccess,
    refetchInterval: live ? LIVE_MS : false,
  });
  const eventItems = useMemo(() => events.data?.pages.flatMap((p) => p.items) ?? [], [events.data]);
  const otherId = other?.id;
  const chartIds = useMemo(() => (otherId ? [id, otherId] : [id]), [id, otherId]);
  const metrics = useQuery({
    ...trpc.runs.compare.queryOptions({ ids: chartIds }),
    enabled: run.isSuccess,
    refetchInterval: live ? METRICS_MS : false,
  });
  // Each arm's samples, the same arrays until the metrics change (the query keeps its data
  // object while a poll returns the same), so the charts are laid out again only then.
  const samples = metrics.data?.samples;
  const ownSamples = useMemo(() => (samples ?? []).filter((s) => s.runId === id), [samples, id]);
  const otherSamples = useMemo(() => (otherId ? (samples ?? []).filter((s) => s.runId === otherId) : []), [samples, otherId]);
  // The last iteration's metrics and events (e.g. "completed") commit with the run's
  // completion, after which polling stops: fetch both once more whenever the iteration or
  // status moves.
  const progress = run.data ? `${run.data.status}:${run.data.currentIteration}` : '';
  useOnChange(progress || undefined, () => {
    void metrics.refetch();
    void events.refetch();
  });

  // The charts' time, episodes and tokens x-axes: each arm on its own clock, step × episodes per
  // iteration, its own generated tokens so far.
  const chartRuns = metrics.data?.runs;
  const ctx = useMemo<XContext>(() => {
    const byKey = (key: string) => chartRuns?.find((c) => c.id === (key === 'arm' ? otherId : id));
    const startOf = (c: { startedAt: Date | string | null; createdAt: Date | string } | undefined) =>
      c ? new Date(c.startedAt ?? c.createdAt).getTime() : undefined;
    const tokens = new Map((chartRuns ?? []).map((c) => [c.id, tokensLookup(c.tokens ?? undefined)]));
    return {
      startMs: (key) => startOf(byKey(key)),
      episodesPerStep: (key) => byKey(key)?.episodesPerIteration,
      tokensAtStep: (key, step) => {
        const c = byKey(key);
        return c ? tokens.get(c.id)?.(step) : undefined;
      },
    };
  }, [chartRuns, id, otherId]);

  // The series the server downsampled (long runs), and every sample for a chart's CSV.
  const downsampledKeys = metrics.data?.downsampled;
  const downsampled = useMemo(() => new Set((downsampledKeys ?? []).map((k) => k.slice(k.indexOf(':') + 1))), [downsampledKeys]);
  const queryClient = useQueryClient();
  const controlId = arms?.control.id;
  const armLabels = useMemo(
    () => (otherId ? (otherId === controlId ? { self: 'RL', other: 'control (lr 0)' } : { self: 'control (lr 0)', other: 'RL' }) : null),
    [otherId, controlId],
  );
  const armSamples = useMemo(() => (armLabels ? { samples: otherSamples, labels: armLabels } : undefined), [armLabels, otherSamples]);
  const full = useCallback<FullCharts>(async () => {
    const all = await queryClient.fetchQuery(trpc.runs.compare.queryOptions({ ids: chartIds, full: true }));
    const armPart = otherId && armLabels ? { samples: all.samples.filter((s) => s.runId === otherId), labels: armLabels } : undefined;
    return runSections(
      all.samples.filter((s) => s.runId === id),
      armPart,
    );
  }, [queryClient, trpc, chartIds, otherId, armLabels, id]);

  if (run.isPending) return <Loading label="Loading run…" />;
  if (run.isError) {
    return (
      <div className="space-y-2">
        <ErrorNotice
          title={errorCode(run.error) === 'NOT_FOUND' || errorCode(run.error) === 'BAD_REQUEST' ? 'No such run' : 'Could not load the run'}
          error={run.error}
          onRetry={() => run.refetch()}
        />
        <Link className="text-accent underline" href="/runs">
          Back to runs
        </Link>
      </div>
    );
  }
  const r = run.data;
  return (
    <>
      <title>{`${r.name} · Crucible`}</title>
      <div className="mb-1 text-xs text-slate-500">
        <Link href="/runs" className="hover:underline">
          Runs
        </Link>{' '}
        / <span className="font-mono">{r.id}</span>
      </div>
      <PageHeader
        title={
          <span className="flex items-center gap-2">
            {r.name}
            <span data-testid="run-status">
              <StatusBadge status={r.status} />
            </span>
            {live && <span className="text-xs font-normal text-slate-400">live</span>}
          </span>
        }
        subtitle={`${r.config.algorithm.toUpperCase()} on ${r.suiteName ?? r.config.suite} · created ${timeAgo(r.createdAt)}`}
        actions={<RunActions run={r} />}
      />
      {r.error && (
        <div role="alert" className="mb-4 rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          Run error: {r.error}
        </div>
      )}
      <RunAlertBanner runId={r.id} />
      <Section title="Overview">
        <Facts
          items={[
            ['Iterations trained', `${r.currentIteration} / ${r.config.iterations}`],
            ['Episodes', `${r.episodesDone} / ${r.episodesTotal}`],
            ['Last reward mean', formatNumber(r.lastRewardMean)],
            ['Queue', `${r.config.queue} (prio ${r.config.priority})`],
            ['Started', formatDateTime(r.startedAt)],
            ['Finished', formatDateTime(r.finishedAt)],
          ]}
        />
        {/* its own line: a model with its LoRA settings is longer than a Facts cell */}
        <dl className="mt-2">
          <dt className="text-xs text-slate-500">Policy</dt>
          <dd className="font-medium">
            <PolicySummary policy={r.config.policy} testId="overview-policy" />
          </dd>
        </dl>
        <div className="mt-3">
          <RunProgress runId={r.id} live={isActive(r.status)} refreshKey={progress} />
        </div>
        {other && (
          <p className="mt-2 text-xs text-slate-500" data-testid="control-arm">
            {other.id === arms!.control.id ? 'Control arm (same config and seed, learning rate 0): ' : 'Control arm of '}
            <Link className="text-accent underline" href={`/runs/${other.id}`}>
              {other.name}
            </Link>{' '}
            ({other.status}); its curves are drawn in grey on the reward and pass-rate charts.
          </p>
        )}
        {r.clonedFrom && (
          <p className="mt-2 text-xs text-slate-500">
            Cloned from{' '}
            <Link className="text-accent underline" href={`/runs/${r.clonedFrom}`}>
              {r.clonedFrom.slice(0, 8)}
            </Link>
          </p>
        )}
      </Section>
      <ComputeUsage runId={r.id} live={isActive(r.status)} />
      <Section title="Metrics" actions={<ComparePicker runId={r.id} />}>
        {metrics.isPending ? (
          <Loading label="Loading metrics…" />
        ) : metrics.isError ? (
          <ErrorNotice title="Could not load metrics" error={metrics.error} onRetry={() => metrics.refetch()} />
        ) : (
          <MetricCharts withheld={r.rewardWithheld} samples={ownSamples} arm={armSamples} ctx={ctx} downsampled={downsampled} full={full} />
        )}
        {other && armLabels && metrics.data && (
          <ArmDifferenceTable
            rl={armLabels.self === 'RL' ? ownSamples : otherSamples}
            control={armLabels.self === 'RL' ? otherSamples : ownSamples}
            n={r.config.tasksPerIteration * r.config.groupSize}
          />
        )}
      </Section>
      {/* items-start: the events box keeps its own height beside a long config */}
      <div className="grid grid-cols-1 items-start gap-4 lg:grid-cols-2">
        <Section title="Events">
          {/* a failed older page (or poll) keeps the events already shown; only a first load that failed replaces them */}
          {events.data ? (
            <EventTimeline
              events={eventItems}
              older={{
                hasMore: events.hasNextPage,
                loading: events.isFetchingNextPage,
                error: events.isFetchNextPageError ? events.error : null,
                pages: events.data.pages.length,
                load: () => void events.fetchNextPage(),
              }}
            />
          ) : events.isError ? (
            <ErrorNotice title="Could not load events" error={events.error} onRetry={() => events.refetch()} />
          ) : (
            <Loading label="Loading events…" />
          )}
        </Section>
        <Section title="Config">
          <ConfigView config={r.config} />
        </Section>
      </div>
      <RunReviewPanel runId={r.id} live={live} refreshKey={progress} />
      <Section title="Episodes">
        <EpisodeTable runId={r.id} live={live} refreshKey={progress} />
      </Section>
    </>
  );
}
