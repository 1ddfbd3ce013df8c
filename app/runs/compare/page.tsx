'use client';
import Link from 'next/link';
import { Suspense, useCallback, useMemo } from 'react';
import { useSearchParams } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { StatusBadge } from '@/components/ui/status-badge';
import { ChartSections, type FullCharts, type XContext } from '@/components/runs/metric-charts';
import { compareCharts, palette } from '@/components/runs/metric-groups';
import { configDiff } from '@/components/runs/compare/config-diff';
import { tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
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
  // The charts' time and episodes x-axes: each run on its own clock, step × its episodes per iteration.
  const compared = data.data?.runs;
  const ctx = useMemo<XContext>(() => {
    const byId = (key: string) => compared?.find((r) => r.id === key);
    return {
      startMs: (key) => {
        const r = byId(key);
        return r ? new Date(r.startedAt ?? r.createdAt).getTime() : undefined;
      },
      episodesPerStep: (key) => byId(key)?.episodesPerIteration,
    };
  }, [compared]);
  // Every sample, for the CSV of a downsampled chart.
  const queryClient = useQueryClient();
  const idsKey = ids.join(',');
  const full = useCallback<FullCharts>(async () => {
    const all = await queryClient.fetchQuery(trpc.runs.compare.queryOptions({ ids: idsKey.split(','), full: true }));
    return compareCharts(all.runs, all.samples);
  }, [queryClient, trpc, idsKey]);
  const header = (
    <PageHeader
      title="Compare runs"
      subtitle="One chart per metric, one line per run; smoothing, log scale and the x-axis (iteration, time, episodes) are set above the charts."
    />
  );
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
  const { runs, samples, downsampled } = data.data;
  const sections = compareCharts(runs, samples, new Set(downsampled.map((k) => k.slice(k.indexOf(':') + 1))));
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
      <Section title="Config differences">
        <ConfigDiffTable runs={runs} />
      </Section>
      <Section title="Metrics">
        {sections.length === 0 ? (
          <EmptyState title="No metrics yet">None of these runs has reported an iteration.</EmptyState>
        ) : (
          <ChartSections sections={sections} ctx={ctx} full={full} />
        )}
      </Section>
    </>
  );
}

/** Only the settings that differ between the compared runs, one column per run. */
function ConfigDiffTable({ runs }: { runs: { id: string; name: string; config: unknown }[] }) {
  const rows = configDiff(runs.map((r) => r.config));
  if (rows.length === 0) return <p className="text-sm text-slate-500">These runs have the same config.</p>;
  return (
    <div className="overflow-x-auto">
      <table className={tableClass} aria-label="Config differences" data-testid="config-diff">
        <thead>
          <tr>
            <th className={thClass}>setting</th>
            {runs.map((r, i) => (
              <th key={r.id} className={thClass}>
                <span aria-hidden className="mr-1.5 inline-block h-0.5 w-3 align-middle" style={{ background: palette[i % palette.length] }} />
                {r.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path} data-testid="config-diff-row">
              <td className={`${tdClass} font-mono text-xs`}>{row.path}</td>
              {row.values.map((v, i) => (
                <td key={runs[i]!.id} className={`${tdClass} break-all font-mono text-xs`}>
                  {v}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function ComparePage() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <Compare />
    </Suspense>
  );
}
