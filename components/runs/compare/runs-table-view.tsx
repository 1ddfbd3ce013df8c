'use client';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { StatusBadge } from '@/components/ui/status-badge';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { formatNumber } from '@/components/display-format';
import { flattenConfig } from './config-diff';
import {
  defaultConfigColumns,
  FIXED_COLUMNS,
  nextSort,
  runsTableRows,
  sortRows,
  type RunsTableRow,
  type SortDir,
  type SortKey,
  type TableRun,
  type TableSample,
} from './runs-table';

/**
 * The compared runs as a table: progress, latest reward and held-out pass@1, and config
 * columns the reader picks (the differing fields at first); a header click sorts by it.
 * `colorOf` is the run's line colour on the charts; `groupOf`, when the charts are grouped, the
 * run's group (its value of the group-by field) and that group's line colour.
 */
export function RunsTableView({
  runs,
  samples,
  differing,
  colorOf,
  groupOf,
}: {
  runs: (TableRun & { metricsWithheld?: boolean })[];
  samples: TableSample[];
  differing: string[];
  colorOf: (runId: string) => string;
  groupOf?: (runId: string) => { value: string; color: string } | undefined;
}) {
  const [columns, setColumns] = useState<string[]>(() => defaultConfigColumns(differing));
  const [sort, setSort] = useState<{ key: SortKey; dir: SortDir } | null>(null);
  const rows = useMemo(() => runsTableRows(runs, samples), [runs, samples]);
  const sorted = useMemo(() => (sort ? sortRows(rows, sort.key, sort.dir) : rows), [rows, sort]);
  // every config field any run has, differing ones first: what the column picker offers
  const fields = useMemo(() => {
    const all = new Set(runs.flatMap((r) => Object.keys(flattenConfig(r.config))));
    return [...differing, ...[...all].filter((f) => !differing.includes(f)).sort((a, b) => a.localeCompare(b))];
  }, [runs, differing]);
  const withheld = new Set(runs.filter((r) => r.metricsWithheld).map((r) => r.id));

  /** A column sorted by a click on its header; `aria-sort` says which way. */
  const sortable = (key: SortKey, label: string, configField = false): Pick<DataColumn<RunsTableRow>, 'key' | 'header' | 'headerProps'> => {
    const active = sort?.key === key;
    return {
      key,
      headerProps: { 'aria-sort': active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none' },
      header: (
        <button
          type="button"
          className={`flex items-center gap-1 whitespace-nowrap hover:text-slate-900 ${configField ? 'font-mono normal-case' : 'uppercase'}`}
          onClick={() => setSort(nextSort(sort ?? { key: 'name', dir: 'desc' }, key))}
          data-testid="sort-header"
          title={`Sort by ${label}`}
        >
          {label}
          <span aria-hidden className="text-[10px] text-slate-400">
            {active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
          </span>
        </button>
      ),
    };
  };
  // the fixed columns' cells, by FIXED_COLUMNS key (its order and labels are the header's)
  const fixedCells: Record<(typeof FIXED_COLUMNS)[number]['key'], Omit<DataColumn<RunsTableRow>, 'key' | 'header'>> = {
    name: {
      cell: (r) => (
        <span className="flex items-center gap-2 whitespace-nowrap">
          <span
            aria-hidden
            className="inline-block h-0.5 w-4 shrink-0"
            style={{ background: colorOf(r.id) }}
            data-testid="run-color"
            data-color={colorOf(r.id)}
          />
          <Link href={`/runs/${r.id}`} className="font-medium text-accent hover:underline">
            {r.name}
          </Link>
        </span>
      ),
    },
    status: { cell: (r) => <StatusBadge status={r.status} /> },
    progress: { className: 'tabular-nums', cell: (r) => r.iteration },
    reward: {
      className: 'tabular-nums',
      cellProps: () => ({ 'data-testid': 'cell-reward' }),
      cell: (r) => (withheld.has(r.id) ? 'withheld' : formatNumber(r.reward)),
    },
    heldout: { className: 'tabular-nums', cell: (r) => (withheld.has(r.id) ? 'withheld' : formatNumber(r.heldout)) },
  };

  return (
    <div className="space-y-2">
      <details className="text-xs text-slate-600" data-testid="column-picker">
        <summary className="cursor-pointer select-none">
          Config columns ({columns.length}): {columns.length ? columns.join(', ') : 'none'}
        </summary>
        <fieldset className="mt-2 grid max-h-48 grid-cols-2 gap-x-4 gap-y-1 overflow-auto rounded border border-slate-200 p-2 sm:grid-cols-3 lg:grid-cols-4">
          <legend className="sr-only">Config columns</legend>
          {fields.map((f) => (
            <label key={f} className="flex min-w-0 items-center gap-1.5 font-mono">
              <input
                type="checkbox"
                checked={columns.includes(f)}
                onChange={(e) => setColumns(e.target.checked ? [...columns, f] : columns.filter((c) => c !== f))}
                aria-label={`Column ${f}`}
              />
              <span className={`truncate ${differing.includes(f) ? 'text-slate-800' : 'text-slate-400'}`} title={differing.includes(f) ? `${f} (differs)` : f}>
                {f}
              </span>
            </label>
          ))}
        </fieldset>
      </details>
      <DataTable
        label="Compared runs"
        testId="compare-runs-table"
        rows={sorted}
        rowKey={(r) => r.id}
        rowTestId="compared-run"
        columns={[
          ...FIXED_COLUMNS.map((c): DataColumn<RunsTableRow> => ({ ...sortable(c.key, c.label), ...fixedCells[c.key] })),
          ...(groupOf ? [groupColumn(groupOf)] : []),
          ...columns.map((f): DataColumn<RunsTableRow> => ({
            ...sortable(`config:${f}`, f, true),
            className: 'break-all font-mono text-xs',
            cellProps: () => ({ 'data-testid': `cell-config:${f}` }),
            cell: (r) => r.config[f] ?? '—',
          })),
        ]}
      />
    </div>
  );
}

/** While the charts are grouped: the run's group, in the group's line colour. */
function groupColumn(groupOf: (runId: string) => { value: string; color: string } | undefined): DataColumn<RunsTableRow> {
  return {
    key: 'group',
    header: <span className="uppercase">group</span>,
    cellProps: () => ({ 'data-testid': 'cell-group' }),
    cell: (r) => {
      const g = groupOf(r.id);
      if (!g) return '—';
      return (
        <span className="flex items-center gap-2 whitespace-nowrap font-mono text-xs">
          <span aria-hidden className="inline-block h-0.5 w-4 shrink-0" style={{ background: g.color }} data-testid="group-color" data-color={g.color} />
          {g.value}
        </span>
      );
    },
  };
}
