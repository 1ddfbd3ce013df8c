'use client';
import { Fragment, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { controlClass, tableClass, tdClass, thClass } from '../ui/layout-parts';
import { formatDateTime } from '../display-format';
import { activeFilterCount, auditQuery, emptyAuditFilters, ROUTINE_ACTION, type AuditFilterState } from './audit-filters';

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
  const label = 'flex flex-col gap-1 text-xs font-medium text-slate-600';
  return (
    <form
      role="search"
      aria-label="Filter the audit log"
      className="mb-3 grid grid-cols-2 gap-x-3 gap-y-2 md:grid-cols-3 xl:grid-cols-6"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
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
    </form>
  );
}

/** The audit log: filters, newest first, keyset pages (Older / Newer), a row's details on demand. */
export function AuditTable() {
  const trpc = useTRPC();
  const [filters, setFilters] = useState<AuditFilterState>(emptyAuditFilters);
  // keyset cursors of the pages walked so far: the last is the page shown (undefined: the newest)
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const before = cursors[cursors.length - 1];
  const audit = useQuery({ ...trpc.audit.list.queryOptions({ ...auditQuery(filters), pageSize, before }), placeholderData: keepPreviousData });
  const actions = useQuery(trpc.audit.actions.queryOptions());
  const apply = (f: AuditFilterState) => {
    setFilters(f);
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
      <AuditFilters applied={filters} onApply={apply} actions={actions.data ?? []} />
      {audit.isPending ? (
        <Loading label="Loading audit log…" />
      ) : audit.isError ? (
        <ErrorNotice title="Could not load the audit log" error={audit.error} onRetry={() => audit.refetch()} />
      ) : audit.data.items.length === 0 ? (
        <EmptyState title={activeFilterCount(filters) ? 'No entries match these filters' : 'No audit entries yet'}>
          {activeFilterCount(filters) ? 'Widen the time range or clear a filter.' : 'Every change made through Crucible is recorded here.'}
        </EmptyState>
      ) : (
        <>
          <div className="overflow-x-auto">
            <table className={`${tableClass} table-fixed`} aria-label="Audit log">
              <colgroup>
                <col className="w-9" />
                <col className="w-14" />
                <col className="w-44" />
                <col className="w-52" />
                <col className="w-36" />
                <col className="w-44" />
                <col />
              </colgroup>
              <thead>
                <tr>
                  <th className={thClass}>
                    <span className="sr-only">Details</span>
                  </th>
                  <th className={thClass}>#</th>
                  <th className={thClass}>At</th>
                  <th className={thClass}>Actor</th>
                  <th className={thClass}>Action</th>
                  <th className={thClass}>Target</th>
                  <th className={thClass}>Details</th>
                </tr>
              </thead>
              <tbody>
                {audit.data.items.map((a) => {
                  const expanded = open.has(a.seq);
                  return (
                    <Fragment key={a.seq}>
                      <tr data-testid="audit-row" data-action={a.action} className={expanded ? 'bg-slate-50' : 'hover:bg-slate-50'}>
                        <td className={tdClass}>
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
                        </td>
                        <td className={`${tdClass} tabular-nums text-slate-500`}>{a.seq}</td>
                        <td className={`${tdClass} whitespace-nowrap text-slate-600`}>{formatDateTime(a.at)}</td>
                        <td className={`${tdClass} truncate`} title={a.actor}>
                          {a.actor}
                        </td>
                        <td className={`${tdClass} truncate font-medium`} title={a.action}>
                          {a.action}
                        </td>
                        <td className={`${tdClass} truncate text-xs`} title={`${a.targetType} ${a.targetId ?? ''}`}>
                          {a.targetType}
                          {/* a uuid shortened to its first 8; shorter ids (sandbox names, usernames) whole */}
                          {a.targetId && (
                            <span className="font-mono text-slate-500"> {a.targetId.length > 20 ? `${a.targetId.slice(0, 8)}…` : a.targetId}</span>
                          )}
                        </td>
                        <td className={`${tdClass} truncate font-mono text-xs text-slate-600`}>{detailsSummary(a.details)}</td>
                      </tr>
                      {expanded && (
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
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
          <nav aria-label="Audit pages" className="flex items-center justify-between px-3 py-2 text-slate-600">
            <span className="tabular-nums" data-testid="audit-count">
              Page {pageNo} · {audit.data.total} matching {audit.data.total === 1 ? 'entry' : 'entries'}
            </span>
            <div className="flex items-center gap-2">
              <Button disabled={pageNo <= 1} onClick={() => setCursors(cursors.slice(0, -1))} aria-label="Newer entries">
                ‹ Newer
              </Button>
              <Button
                disabled={audit.data.nextBefore === null}
                onClick={() => setCursors([...cursors, audit.data.nextBefore ?? undefined])}
                aria-label="Older entries"
              >
                Older ›
              </Button>
            </div>
          </nav>
        </>
      )}
    </div>
  );
}
