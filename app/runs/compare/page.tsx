'use client';
import Link from 'next/link';
import { Suspense } from 'react';
import { useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { StatusBadge } from '@/components/ui/status-badge';
import { ChartSections } from '@/components/runs/metric-charts';
import { compareCharts, palette } from '@/components/runs/metric-groups';
import { isActive } from '@/core/run-status';

const LIVE_MS = 6_000;

/** /runs/compare?ids=a,b — one chart per metric, one line per run. */
function Compare() {
  const params = useSearchParams();
  const ids = [
    ...new Set(
      (params.get('ids') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const trpc = useTRPC();
  const data = useQuery({
    ...trpc.runs.compare.queryOptions({ ids }),
    enabled: ids.length >= 2,
    retry: false,
    refetchInterval: (q) => (q.state.data?.runs.some((r) => isActive(r.status)) ? LIVE_MS : false),
  });
  const header = <PageHeader title="Compare runs" subtitle="One chart per metric, one line per run (x = iteration step)." />;
  if (ids.length < 2) {
    return (
      <>
        {header}
        <EmptyState title="Pick at least two runs">
          Tick two or more runs on{' '}
          <Link className="text-accent underline" href="/runs">
            Runs
          </Link>{' '}
          and press Compare, or open /runs/compare?ids=RUN_ID,RUN_ID.
        </EmptyState>
      </>
    );
  }
  if (data.isPending)
    return (
      <>
        {header}
        <Loading label="Loading metrics…" />
      </>
    );
  if (data.isError)
    return (
      <>
        {header}
        <ErrorNotice title="Could not compare these runs" error={data.error} onRetry={() => data.refetch()} />
      </>
    );
  const { runs, samples } = data.data;
  const sections = compareCharts(runs, samples);
  return (
    <>
      <title>Compare runs · Crucible</title>
      {header}
      <Section title="Runs">
        <ul className="flex flex-wrap gap-x-6 gap-y-2" aria-label="Compared runs">
          {runs.map((r, i) => (
            <li key={r.id} className="flex items-center gap-2" data-testid="compared-run">
              <span aria-hidden className="inline-block h-0.5 w-5" style={{ background: palette[i % palette.length] }} />
              <Link href={`/runs/${r.id}`} className="font-medium text-accent hover:underline">
                {r.name}
              </Link>
              <StatusBadge status={r.status} />
              <span className="text-xs tabular-nums text-slate-500">
                {r.algorithm.toUpperCase()} · iteration {r.currentIteration}/{r.iterations}
              </span>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Metrics">
        {sections.length === 0 ? (
          <EmptyState title="No metrics yet">None of these runs has reported an iteration.</EmptyState>
        ) : (
          <ChartSections sections={sections} />
        )}
      </Section>
    </>
  );
}

export default function ComparePage() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <Compare />
    </Suspense>
  );
}
