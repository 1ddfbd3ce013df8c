'use client';
import { FilterForm, filterLabelClass } from '@/components/ui/filter-form';
import { KeysetPager } from '@/components/ui/pagination';
import { useMemo, useState } from 'react';
import { useRouter, useSearchParams } from 'next/navigation';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { controlClass, tdClass } from '../ui/layout-parts';
import { DataTable } from '../ui/data-table';
import { formatDateTime } from '../display-format';
import { activeFilterCount, auditQuery, emptyAuditFilters, filtersFromSearch, ROUTINE_ACTION, searchFromFilters, type AuditFilterState } from './audit-filters';

const pageSize = 50;

const detailsSummary = (d: Record<string, unknown> | null | undefined) => {
  const keys = Object.keys(d ?? {});
  if (!keys.length) return '—';
  const text = JSON.stringify(d);
  return text.length > 90 ? `${text.slice(0, 90)}…` : text;
};

/** Actor, action, target and time filters; applied on submit, the sandbox.exec toggle at once. */
function AuditFilters({ applied, onApply, actions }: { applied: AuditFilterState; onApply: (f: AuditFilterState) => void; actions: string[] }) {
  const [draft, setDraft] = useState(applied);
  const set = (k: keyof AuditFilterState) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const label = filterLabelClass;
  return (
    <FilterForm label="Filter the audit log" onSubmit={() => onApply(draft)}>
      <label className={label}>
        Actor
        <input className={controlClass} value={draft.actor} onChange={set('actor')} placeholder="e.g. alice or system:" aria-label="Actor" />
      </label>
      <label className={label}>
        Action
        <input
          className={controlClass}
          value={draft.action}
          onChange={set('action')}
          placeholder="e.g. run.pause or run.*"
          list="audit-actions"
          aria-label="Action"
        />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </label>
      <label className={label}>
        Target type
        <input className={controlClass} value={draft.targetType} onChange={set('targetType')} placeholder="run, user, token…" aria-label="Target type" />
      </label>
      <label className={label}>
        Target id
        <input className={`${controlClass} font-mono`} value={draft.targetId} onChange={set('targetId')} aria-label="Target id" />
      </label>
      <label className={label}>
        From
        <input type="datetime-local" className={controlClass} value={draft.from} onChange={set('from')} aria-label="From" />
      </label>
      <label className={label}>
        To
        <input type="datetime-local" className={controlClass} value={draft.to} onChange={set('to')} aria-label="To" />
      </label>
      <div className="col-span-full flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
        <Button
          onClick={() => {
            const cleared = { ...emptyAuditFilters, hideSandboxExec: draft.hideSandboxExec };
            setDraft(cleared);
            onApply(cleared);
          }}
          disabled={activeFilterCount(draft) === 0 && activeFilterCount(applied) === 0}
        >
          Clear
        </Button>
        <label className="flex items-center gap-1.5 text-sm text-slate-700">
          <input
            type="checkbox"
            checked={draft.hideSandboxExec}
            onChange={(e) => {
              const next = { ...draft, hideSandboxExec: e.target.checked };
              setDraft(next);
              onApply({ ...applied, hideSandboxExec: e.target.checked });
            }}
            data-testid="hide-sandbox-exec"
          />
          Hide routine <code className="font-mono text-xs">{ROUTINE_ACTION}</code> rows
        </label>
      </div>
    </FilterForm>
  );
}

/** The audit log: filters, newest first, keyset pages (Older / Newer), a row's details on demand. */
export function AuditTable() {
  const trpc = useTRPC();
  // the filters live in the URL: a filtered view can be linked, reloaded and gone back to
  const router = useRouter();
  const params = useSearchParams();
  const search = params.toString();
  const filters = useMemo(() => filtersFromSearch(new URLSearchParams(search)), [search]);
  // keyset cursors of the pages walked so far: the last is the page shown (undefined: the newest)
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const before = cursors[cursors.length - 1];
  const audit = useQuery({ ...trpc.audit.list.queryOptions({ ...auditQuery(filters), pageSize, before }), placeholderData: keepPreviousData });
  const actions = useQuery(trpc.audit.actions.queryOptions());
  const apply = (f: AuditFilterState) => {
    router.replace(`/audit${searchFromFilters(f)}`, { scroll: false });
    setCursors([undefined]);
    setOpen(new Set());
  };
  const toggle = (seq: number) => {
    const next = new Set(open);
    if (next.has(seq)) next.delete(seq);
    else next.add(seq);
    setOpen(next);
  };
  const pageNo = cursors.length;
  return (
    <div>
      <AuditFilters key={search} applied={filters} onApply={apply} actions={actions.data ?? []} />
      {audit.isPending ? (
        <Loading label="Loading audit log…" />
      ) : audit.isError ? (
        <ErrorNotice title="Could not load the audit log" error={audit.error} onRetry={() => audit.refetch()} />
      ) : (
        <DataTable
          label="Audit log"
          fixed
          rows={audit.data.items}
          rowKey={(a) => a.seq}
          rowTestId="audit-row"
          rowProps={(a) => ({ 'data-action': a.action, className: open.has(a.seq) ? 'bg-slate-50' : 'hover:bg-slate-50' })}
          empty={
            <EmptyState title={activeFilterCount(filters) ? 'No entries match these filters' : 'No audit entries yet'}>
              {activeFilterCount(filters) ? 'Widen the time range or clear a filter.' : 'Every change made through Crucible is recorded here.'}
            </EmptyState>
          }
          afterRow={(a) =>
            open.has(a.seq) && (
              <tr id={`audit-details-${a.seq}`} data-testid="audit-details" className="bg-slate-50">
                <td className={tdClass} />
                <td className={tdClass} colSpan={6}>
                  <dl className="mb-2 grid grid-cols-[8rem_1fr] gap-x-3 gap-y-0.5 text-xs">
                    <dt className="text-slate-500">Target</dt>
                    <dd className="break-all font-mono">
                      {a.targetType} {a.targetId ?? '—'}
                    </dd>
                    <dt className="text-slate-500">Hash</dt>
                    <dd className="break-all font-mono text-slate-600">{a.hash}</dd>
                    <dt className="text-slate-500">Previous hash</dt>
                    <dd className="break-all font-mono text-slate-600">{a.prevHash}</dd>
                  </dl>
                  <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all rounded border border-slate-200 bg-white p-2 font-mono text-xs">
                    {JSON.stringify(a.details ?? {}, null, 2)}
                  </pre>
                </td>
              </tr>
            )
          }
          footer={
            <KeysetPager
              label="Audit pages"
              noun="entries"
              testId="audit-count"
              summary={`Page ${pageNo} · ${audit.data.total} matching ${audit.data.total === 1 ? 'entry' : 'entries'}`}
              hasNewer={pageNo > 1}
              hasOlder={audit.data.nextBefore !== null}
              onNewer={() => setCursors(cursors.slice(0, -1))}
              onOlder={() => setCursors([...cursors, audit.data.nextBefore ?? undefined])}
            />
          }
          columns={[
            {
              key: 'expand',
              header: <span className="sr-only">Details</span>,
              width: 'w-9',
              cell: (a) => {
                const expanded = open.has(a.seq);
                return (
                  <button
                    type="button"
                    className="rounded px-1 text-slate-500 hover:bg-slate-200 hover:text-slate-800"
                    aria-expanded={expanded}
                    aria-controls={`audit-details-${a.seq}`}
                    aria-label={`${expanded ? 'Hide' : 'Show'} details of entry ${a.seq}`}
                    onClick={() => toggle(a.seq)}
                    data-testid="audit-expand"
                  >
                    {expanded ? '▾' : '▸'}
                  </button>
                );
              },
            },
            { key: 'seq', header: '#', width: 'w-14', className: 'tabular-nums text-slate-500', cell: (a) => a.seq },
            { key: 'at', header: 'At', width: 'w-44', className: 'whitespace-nowrap text-slate-600', cell: (a) => formatDateTime(a.at) },
            { key: 'actor', header: 'Actor', width: 'w-52', className: 'truncate', cellProps: (a) => ({ title: a.actor }), cell: (a) => a.actor },
            {
              key: 'action',
              header: 'Action',
              width: 'w-36',
              className: 'truncate font-medium',
              cellProps: (a) => ({ title: a.action }),
              cell: (a) => a.action,
            },
            {
              key: 'target',
              header: 'Target',
              width: 'w-44',
              className: 'truncate text-xs',
              cellProps: (a) => ({ title: `${a.targetType} ${a.targetId ?? ''}` }),
              cell: (a) => (
                <>
                  {a.targetType}
                  {/* a uuid shortened to its first 8; shorter ids (sandbox names, usernames) whole */}
                  {a.targetId && <span className="font-mono text-slate-500"> {a.targetId.length > 20 ? `${a.targetId.slice(0, 8)}…` : a.targetId}</span>}
                </>
              ),
            },
            { key: 'details', header: 'Details', className: 'truncate font-mono text-xs text-slate-600', cell: (a) => detailsSummary(a.details) },
          ]}
        />
      )}
    </div>
  );
}
