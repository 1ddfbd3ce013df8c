'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { buttonClass } from '@/components/ui/button';
import { StatusBadge } from '@/components/ui/status-badge';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, controlClass } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { Pagination } from '@/components/ui/pagination';
import { ProgressBar } from '@/components/runs/progress-bar';
import { CoverageFlag } from '@/components/review/coverage-flag';
import { isActive, RUN_STATUSES, type RunStatus } from '@/core/run-status';
import { formatNumber, timeAgo } from '@/components/display-format';
import { compareHref } from '@/components/runs/compare-picker';
import { COMPARE_MAX_RUNS } from '@/core/metrics';

const pageSize = 25;

export default function RunsPage() {
  const trpc = useTRPC();
  const user = useCurrentUser();
  const [status, setStatus] = useState<RunStatus | ''>('');
  const [searchInput, setSearchInput] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  // Ticked for comparison; kept across pages and filters so runs can be picked from several.
  const [picked, setPicked] = useState<string[]>([]);
  const router = useRouter();
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));

  // Debounce typing so each keystroke is not a request.
  useEffect(() => {
    const t = setTimeout(() => {
      setSearch(searchInput.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [searchInput]);

  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ status: status ? [status] : undefined, search: search || undefined, page, pageSize }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.items.some((r) => isActive(r.status)) ? 5_000 : 30_000),
  });
  const filtered = status !== '' || search !== '';

  return (
    <>
      <title>Runs · Crucible</title>
      <PageHeader
        title="Runs"
        subtitle="Training runs, newest first."
        actions={
          can(user.role, 'operateRuns') && (
            <Link href="/runs/new" className={buttonClass('primary')}>
              Launch run
            </Link>
          )
        }
      />
      <CoverageFlag runIds={runs.data?.items.map((r) => r.id) ?? []} names={Object.fromEntries((runs.data?.items ?? []).map((r) => [r.id, r.name]))} />
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <input
          className={`${controlClass} w-72`}
          type="search"
          placeholder="Search by name or id"
          aria-label="Search runs"
          value={searchInput}
          onChange={(e) => setSearchInput(e.target.value)}
        />
        <select
          className={`${controlClass} w-40`}
          aria-label="Filter by status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as RunStatus | '');
            setPage(1);
          }}
        >
          <option value="">All statuses</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {runs.isFetching && !runs.isPending && <span className="text-xs text-slate-400">updating…</span>}
        <span className="ml-auto flex items-center gap-2">
          {picked.length > 0 && (
            <button type="button" className="text-xs text-slate-500 hover:underline" onClick={() => setPicked([])}>
              clear
            </button>
          )}
          <button
            type="button"
            className={buttonClass('secondary')}
            disabled={picked.length < 2 || picked.length > COMPARE_MAX_RUNS}
            title={picked.length < 2 ? 'Tick two or more runs to compare' : picked.length > COMPARE_MAX_RUNS ? `At most ${COMPARE_MAX_RUNS} runs` : undefined}
            onClick={() => router.push(compareHref(picked))}
          >
            Compare{picked.length ? ` (${picked.length})` : ''}
          </button>
        </span>
      </div>
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorNotice title="Could not load runs" error={runs.error} onRetry={() => runs.refetch()} />
      ) : runs.data.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No runs match these filters">Clear the search or pick another status.</EmptyState>
        ) : (
          <EmptyState title="No runs yet">
            {can(user.role, 'operateRuns') ? (
              <>
                Start one from the{' '}
                <Link className="text-accent underline" href="/runs/new">
                  launch form
                </Link>
                , or with `npx crucible runs create`.
              </>
            ) : (
              'An operator or admin can launch one.'
            )}
          </EmptyState>
        )
      ) : (
        <DataTable
          label="Runs"
          rows={runs.data.items}
          rowKey={(r) => r.id}
          rowTestId="run-row"
          rowProps={() => ({ className: 'hover:bg-slate-50' })}
          wrapperClassName="overflow-x-auto rounded border border-slate-200 bg-white"
          footer={<Pagination page={page} pageSize={pageSize} total={runs.data.total} onPage={setPage} />}
          columns={[
            {
              key: 'compare',
              header: <span className="sr-only">Compare</span>,
              headerClassName: 'w-8',
              cell: (r) => <input type="checkbox" aria-label={`Compare ${r.name}`} checked={picked.includes(r.id)} onChange={() => toggle(r.id)} />,
            },
            {
              key: 'name',
              header: 'Name',
              cell: (r) => (
                <>
                  <Link href={`/runs/${r.id}`} className="font-medium text-accent hover:underline">
                    {r.name}
                  </Link>
                  <div className="font-mono text-xs text-slate-400">{r.id.slice(0, 8)}</div>
                </>
              ),
            },
            { key: 'status', header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
            { key: 'algorithm', header: 'Algorithm', className: 'uppercase text-slate-600', cell: (r) => r.config.algorithm },
            { key: 'iteration', header: 'Iteration', className: 'tabular-nums', cell: (r) => `${r.currentIteration} / ${r.config.iterations}` },
            {
              key: 'episodes',
              header: 'Episodes',
              cell: (r) => <ProgressBar done={r.episodesDone} total={r.episodesTotal} label={`${r.episodesDone} / ${r.episodesTotal}`} />,
            },
            { key: 'reward', header: 'Reward', align: 'right', className: 'tabular-nums', cell: (r) => formatNumber(r.lastRewardMean) },
            {
              key: 'age',
              header: 'Age',
              className: 'whitespace-nowrap text-slate-600',
              cellProps: (r) => ({ title: new Date(r.createdAt).toISOString() }),
              cell: (r) => timeAgo(r.createdAt),
            },
          ]}
        />
      )}
    </>
  );
}
