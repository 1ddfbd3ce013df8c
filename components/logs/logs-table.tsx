'use client';
import { FilterForm, filterLabelClass } from '@/components/ui/filter-form';
import { KeysetPager } from '@/components/ui/pagination';
import { useMemo, useState } from 'react';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { LOG_LEVELS } from '@/core/log-records';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { controlClass, tdClass } from '../ui/layout-parts';
import { DataTable } from '../ui/data-table';
import { formatDateTime } from '../display-format';
import { LevelBadge } from './level-badge';
import {
  activeFilterCount,
  emptyLogFilters,
  fieldSummary,
  filterProblem,
  filtersFromSearch,
  logsQuery,
  searchFromFilters,
  type LogFilterState,
} from './log-filters';

const pageSize = 100;

/** Run, episode, worker, host, level and text filters; applied on submit (the level at once). */
function LogFilters({ applied, onApply }: { applied: LogFilterState; onApply: (f: LogFilterState) => void }) {
  const [draft, setDraft] = useState(applied);
  const set = (k: keyof LogFilterState) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const label = filterLabelClass;
  return (
    <FilterForm label="Filter the logs" onSubmit={() => onApply(draft)}>
      <label className={label}>
        Run
        <input className={`${controlClass} font-mono`} value={draft.run} onChange={set('run')} placeholder="run id" aria-label="Run" />
      </label>
      <label className={label}>
        Episode
        <input className={`${controlClass} font-mono`} value={draft.episode} onChange={set('episode')} placeholder="episode id" aria-label="Episode" />
      </label>
      <label className={label}>
        Worker
        <input className={`${controlClass} font-mono`} value={draft.worker} onChange={set('worker')} placeholder="worker id" aria-label="Worker" />
      </label>
      <label className={label}>
        Host
        <input className={controlClass} value={draft.host} onChange={set('host')} placeholder="node name" aria-label="Host" />
      </label>
      <label className={label}>
        Level
        <select
          className={controlClass}
          value={draft.level}
          aria-label="Level"
          onChange={(e) => {
            const next = { ...draft, level: e.target.value as LogFilterState['level'] };
            setDraft(next);
            onApply(next);
          }}
        >
          <option value="">all levels</option>
          {LOG_LEVELS.map((l) => (
            <option key={l} value={l}>
              {l} and above
            </option>
          ))}
        </select>
      </label>
      <label className={label}>
        Text
        <input className={controlClass} value={draft.text} onChange={set('text')} placeholder="in the message or a field" aria-label="Text" />
      </label>
      <div className="col-span-full flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
        <Button
          onClick={() => {
            setDraft(emptyLogFilters);
            onApply(emptyLogFilters);
          }}
          disabled={activeFilterCount(draft) === 0 && activeFilterCount(applied) === 0}
        >
          Clear
        </Button>
      </div>
    </FilterForm>
  );
}

const short = (id: string) => `${id.slice(0, 8)}…`;

/** Log records of every host: filters in the URL, newest first, keyset pages, optional auto-refresh, a record's fields on demand. */
export function LogsTable() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const search = params.toString();
  const filters = useMemo(() => filtersFromSearch(new URLSearchParams(search)), [search]);
  const problem = filterProblem(filters);
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const [live, setLive] = useState(false);
  const before = cursors[cursors.length - 1];
  const logs = useQuery({
    ...trpc.logs.list.queryOptions({ ...logsQuery(filters), limit: pageSize, before }),
    enabled: !problem,
    placeholderData: keepPreviousData,
    // auto-refresh only makes sense on the newest page
    refetchInterval: live && before === undefined ? 3_000 : false,
  });
  const apply = (f: LogFilterState) => {
    router.replace(`/logs${searchFromFilters(f)}`, { scroll: false });
    setCursors([undefined]);
    setOpen(new Set());
  };
  const toggle = (id: number) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  const pageNo = cursors.length;
  return (
    <div>
      <LogFilters key={search} applied={filters} onApply={apply} />
      <label className="mb-2 flex items-center gap-1.5 text-sm text-slate-700">
        <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} data-testid="logs-live" />
        Auto-refresh every 3 s
      </label>
      {problem ? (
        <ErrorNotice title="Check the filters" error={new Error(problem)} />
      ) : logs.isPending ? (
        <Loading label="Loading logs…" />
      ) : logs.isError ? (
        <ErrorNotice title="Could not load the logs" error={logs.error} onRetry={() => logs.refetch()} />
      ) : (
        <DataTable
          label="Log records"
          fixed
          rows={logs.data.items}
          rowKey={(r) => r.id}
          rowTestId="log-row"
          rowProps={(r) => ({ 'data-level': r.level, 'data-host': r.host, className: open.has(r.id) ? 'bg-slate-50' : 'hover:bg-slate-50' })}
          empty={
            <EmptyState title={activeFilterCount(filters) ? 'No records match these filters' : 'No log records yet'}>
              {activeFilterCount(filters)
                ? 'Lower the level or clear a filter.'
                : 'Every worker ships its records here (CRUCIBLE_LOG_SHIP_LEVEL and above) once it has started.'}
            </EmptyState>
          }
          afterRow={(r) =>
            open.has(r.id) && (
              <tr id={`log-details-${r.id}`} data-testid="log-details" className="bg-slate-50">
                <td className={tdClass} />
                <td className={tdClass} colSpan={5}>
                  <dl className="mb-2 grid grid-cols-[8rem_1fr] gap-x-3 gap-y-0.5 text-xs">
                    <dt className="text-slate-500">Process</dt>
                    <dd className="font-mono">
                      {r.process} pid {r.pid} on {r.host}
                      {r.workerId && <> · worker {r.workerId}</>}
                    </dd>
                    {r.jobId !== null && (
                      <>
                        <dt className="text-slate-500">Job</dt>
                        <dd className="font-mono">{r.jobId}</dd>
                      </>
                    )}
                  </dl>
                  <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all rounded border border-slate-200 bg-white p-2 font-mono text-xs">
                    {JSON.stringify(r.fields, null, 2)}
                  </pre>
                </td>
              </tr>
            )
          }
          footer={
            <KeysetPager
              label="Log pages"
              noun="records"
              testId="logs-count"
              summary={`Page ${pageNo} · ${logs.data.items.length} record${logs.data.items.length === 1 ? '' : 's'}`}
              hasNewer={pageNo > 1}
              hasOlder={logs.data.nextBefore !== null}
              onNewer={() => setCursors(cursors.slice(0, -1))}
              onOlder={() => setCursors([...cursors, logs.data.nextBefore ?? undefined])}
            />
          }
          columns={[
            {
              key: 'expand',
              header: <span className="sr-only">Details</span>,
              width: 'w-9',
              cell: (r) => (
                <button
                  type="button"
                  className="rounded px-1 text-slate-500 hover:bg-slate-200 hover:text-slate-800"
                  aria-expanded={open.has(r.id)}
                  aria-controls={`log-details-${r.id}`}
                  aria-label={`${open.has(r.id) ? 'Hide' : 'Show'} fields of record ${r.id}`}
                  onClick={() => toggle(r.id)}
                  data-testid="log-expand"
                >
                  {open.has(r.id) ? '▾' : '▸'}
                </button>
              ),
            },
            { key: 'at', header: 'At', width: 'w-44', className: 'whitespace-nowrap text-slate-600', cell: (r) => formatDateTime(r.at) },
            { key: 'level', header: 'Level', width: 'w-20', cell: (r) => <LevelBadge level={r.level} /> },
            {
              key: 'source',
              header: 'Host / worker',
              width: 'w-48',
              className: 'truncate text-xs',
              cellProps: (r) => ({ title: `${r.host} ${r.workerId ?? r.process}` }),
              cell: (r) => (
                <>
                  {r.host}
                  <span className="font-mono text-slate-500"> {r.workerId ?? r.process}</span>
                </>
              ),
            },
            {
              key: 'ids',
              header: 'Run / episode',
              width: 'w-44',
              className: 'truncate font-mono text-xs',
              cell: (r) => (
                <>
                  {r.runId && (
                    <Link className="text-accent underline" href={`/runs/${r.runId}`} title={r.runId}>
                      {short(r.runId)}
                    </Link>
                  )}
                  {r.episodeId && (
                    <>
                      {' '}
                      <Link className="text-accent underline" href={`/episodes/${r.episodeId}`} title={r.episodeId} data-testid="log-episode-link">
                        {short(r.episodeId)}
                      </Link>
                    </>
                  )}
                </>
              ),
            },
            {
              key: 'msg',
              header: 'Message',
              className: 'break-words text-xs',
              cell: (r) => (
                <>
                  <span data-testid="log-msg">{r.msg}</span>
                  {fieldSummary(r.fields) && <span className="ml-2 font-mono text-slate-500">{fieldSummary(r.fields)}</span>}
                </>
              ),
            },
          ]}
        />
      )}
    </div>
  );
}
