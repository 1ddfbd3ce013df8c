'use client';
import Link from 'next/link';
import { Suspense, useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'next/navigation';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, controlClass } from '@/components/ui/layout-parts';
import { ChartSections, type FullCharts, type XContext } from '@/components/runs/metric-charts';
import { tokensLookup } from '@/components/runs/charts/chart-view';
import { compareCharts } from '@/components/runs/metric-groups';
import { runColors } from '@/components/runs/run-colors';
import { configDiff, type ConfigDiffRow } from '@/components/runs/compare/config-diff';
import { isRepoOnlyPath } from '@/components/runs/run-form-fields';
import { groupableFields, groupedSections, groupRuns } from '@/components/runs/compare/group-runs';
import { RunsTableView } from '@/components/runs/compare/runs-table-view';
import { DataTable } from '@/components/ui/data-table';
import { isActive } from '@/core/run-status';
import { useOnChange } from '@/components/ui/use-on-change';

// Everything on this page is metrics, which change once an iteration: the compared runs that are
// live are watched through their small status (runs.get, every STATUS_MS), and the metrics are
// fetched again when one of them moves, or every METRICS_MS (5 min) at the latest.
const STATUS_MS = 5_000;
const METRICS_MS = 300_000;

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
  const idsKey = ids.join(',');
  const data = useQuery({
    ...trpc.runs.compare.queryOptions({ ids }),
    enabled: ids.length >= 2,
    retry: false,
    refetchInterval: (q) => (q.state.data?.runs.some((r) => isActive(r.status)) ? METRICS_MS : false),
  });
  const liveIds = useMemo(() => (data.data?.runs ?? []).filter((r) => isActive(r.status)).map((r) => r.id), [data.data?.runs]);
  const liveStatus = useQueries({
    queries: liveIds.map((id) => ({ ...trpc.runs.get.queryOptions({ id }), refetchInterval: STATUS_MS })),
    combine: (rs) => (rs.every((r) => r.data) ? rs.map((r) => `${r.data!.id}:${r.data!.status}:${r.data!.currentIteration}`).join(',') : undefined),
  });
  useOnChange(liveStatus, () => void data.refetch());
  // Group by a config field (mean of each group's runs, min – max band); '' draws one line per run.
  const [groupBy, setGroupBy] = useState('');
  const compared = data.data?.runs;
  // repository-only settings are left out of the diff and group-by unless a compared run is on a repository suite
  const suites = useQuery(trpc.runs.suites.queryOptions());
  const skip = useMemo(() => {
    const repoSuites = new Set((suites.data ?? []).filter((x) => x.repoTasks > 0).map((x) => x.name));
    const anyRepo = (compared ?? []).some((r) => repoSuites.has((r.config as { suite?: string }).suite ?? ''));
    return anyRepo || !suites.data ? undefined : isRepoOnlyPath;
  }, [suites.data, compared]);
  const fields = useMemo(() => (compared ? groupableFields(compared, skip) : []), [compared, skip]);
  const field = fields.includes(groupBy) ? groupBy : '';
  const groups = useMemo(() => (compared && field ? groupRuns(compared, field) : null), [compared, field]);
  // The charts' time and episodes x-axes: each run on its own clock, step × its episodes per
  // iteration; a group on its first run's.
  const tokens = useMemo(() => new Map((compared ?? []).map((r) => [r.id, tokensLookup(r.tokens ?? undefined)])), [compared]);
  const ctx = useMemo<XContext>(() => {
    const byId = (key: string) => compared?.find((r) => r.id === (groups?.find((g) => g.key === key)?.runIds[0] ?? key));
    return {
      startMs: (key) => {
        const r = byId(key);
        return r ? new Date(r.startedAt ?? r.createdAt).getTime() : undefined;
      },
      episodesPerStep: (key) => byId(key)?.episodesPerIteration,
      tokensAtStep: (key, step) => {
        const r = byId(key);
        return r ? tokens.get(r.id)?.(step) : undefined;
      },
    };
  }, [compared, groups, tokens]);
  // Every sample, for the CSV of a downsampled chart.
  const queryClient = useQueryClient();
  const full = useCallback<FullCharts>(async () => {
    const all = await queryClient.fetchQuery(trpc.runs.compare.queryOptions({ ids: idsKey.split(','), full: true }));
    const sections = compareCharts(all.runs, all.samples);
    return groups ? groupedSections(sections, groups) : sections;
  }, [queryClient, trpc, idsKey, groups]);
  // Laid out once per answer that changed (the query keeps its data object while a poll returns
  // the same), not on every render; panels whose data did not change then skip (ChartSections).
  const answer = data.data;
  // each run's colour from its id, placed in the URL's order: the same grouped or not, and when runs join or leave
  const colors = useMemo(() => runColors(idsKey.split(',')), [idsKey]);
  const sections = useMemo(() => {
    if (!answer) return [];
    const perRun = compareCharts(answer.runs, answer.samples, new Set(answer.downsampled.map((k) => k.slice(k.indexOf(':') + 1))), colors);
    return groups ? groupedSections(perRun, groups) : perRun;
  }, [answer, colors, groups]);
  const header = (
    <PageHeader
      title="Compare runs"
      subtitle="One chart per metric, one line per run (or per group of runs: Group by); smoothing, log scale and the x-axis (iteration, time, episodes, generated tokens) are set above the charts."
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
  const { runs, samples } = data.data;
  const colorOf = (id: string) => colors.get(id) ?? '#94a3b8';
  const groupOf = groups ? (id: string) => groups.find((g) => g.runIds.includes(id)) : undefined;
  return (
    <>
      <title>Compare runs · Crucible</title>
      {header}
      <Section title="Runs">
        <RunsTableView runs={runs} samples={samples} differing={fields} colorOf={colorOf} groupOf={groupOf} />
      </Section>
      <Section title="Config differences">
        <ConfigDiffTable runs={runs} skip={skip} colorOf={colorOf} />
      </Section>
      <Section
        title="Metrics"
        actions={
          <label className="flex items-center gap-2 text-xs text-slate-600">
            Group by
            <select
              className={`${controlClass} py-0.5 text-xs`}
              value={field}
              onChange={(e) => setGroupBy(e.target.value)}
              aria-label="Group by"
              disabled={!fields.length}
            >
              <option value="">none (a line per run)</option>
              {fields.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </label>
        }
      >
        {groups && (
          <p className="mb-2 text-xs text-slate-500" data-testid="group-note">
            {groups.length} group{groups.length === 1 ? '' : 's'} by {field}: each line is the mean of its runs at each iteration, the band their minimum to
            maximum.
          </p>
        )}
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
function ConfigDiffTable({
  runs,
  skip,
  colorOf,
}: {
  runs: { id: string; name: string; config: unknown }[];
  skip?: (path: string) => boolean;
  colorOf: (runId: string) => string;
}) {
  const rows = configDiff(
    runs.map((r) => r.config),
    skip,
  );
  return (
    <DataTable
      label="Config differences"
      testId="config-diff"
      rows={rows}
      rowKey={(row) => row.path}
      rowTestId="config-diff-row"
      empty="These runs have the same config."
      columns={[
        { key: 'setting', header: 'setting', className: 'font-mono text-xs', cell: (row) => row.path },
        ...runs.map((r, i) => ({
          key: r.id,
          header: (
            <>
              <span aria-hidden className="mr-1.5 inline-block h-0.5 w-3 align-middle" style={{ background: colorOf(r.id) }} />
              {r.name}
            </>
          ),
          className: 'break-all font-mono text-xs',
          cell: (row: ConfigDiffRow) => row.values[i],
        })),
      ]}
    />
  );
}

export default function ComparePage() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <Compare />
    </Suspense>
  );
}
