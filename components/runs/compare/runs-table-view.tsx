'use client';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { StatusBadge } from '@/components/ui/status-badge';
import { tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { formatNumber } from '@/components/display-format';
import { flattenConfig } from './config-diff';
import {
  defaultConfigColumns,
  FIXED_COLUMNS,
  nextSort,
  runsTableRows,
  sortRows,
  type SortDir,
  type SortKey,
  type TableRun,
  type TableSample,
} from './runs-table';

/**
 * The compared runs as a table: progress, latest reward and held-out pass@1, and config
 * columns the reader picks (the differing fields at first); a header click sorts by it.
 * `colorOf` is the run's line colour on the charts.
 */
export function RunsTableView({
  runs,
  samples,
  differing,
  colorOf,
}: {
  runs: (TableRun & { metricsWithheld?: boolean })[];
  samples: TableSample[];
  differing: string[];
  colorOf: (runId: string) => string;
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

  const header = (key: SortKey, label: string, configField = false) => {
    const active = sort?.key === key;
    return (
      <th key={key} className={thClass} aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
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
      </th>
    );
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
      <div className="overflow-x-auto">
        <table className={tableClass} aria-label="Compared runs" data-testid="compare-runs-table">
          <thead>
            <tr>
              {FIXED_COLUMNS.map((c) => header(c.key, c.label))}
              {columns.map((f) => header(`config:${f}`, f, true))}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => (
              <tr key={r.id} data-testid="compared-run">
                <td className={tdClass}>
                  <span className="flex items-center gap-2 whitespace-nowrap">
                    <span aria-hidden className="inline-block h-0.5 w-4 shrink-0" style={{ background: colorOf(r.id) }} />
                    <Link href={`/runs/${r.id}`} className="font-medium text-accent hover:underline">
                      {r.name}
                    </Link>
                  </span>
                </td>
                <td className={tdClass}>
                  <StatusBadge status={r.status} />
                </td>
                <td className={`${tdClass} tabular-nums`}>{r.iteration}</td>
                <td className={`${tdClass} tabular-nums`} data-testid="cell-reward">
                  {withheld.has(r.id) ? 'withheld' : formatNumber(r.reward)}
                </td>
                <td className={`${tdClass} tabular-nums`}>{withheld.has(r.id) ? 'withheld' : formatNumber(r.heldout)}</td>
                {columns.map((f) => (
                  <td key={f} className={`${tdClass} break-all font-mono text-xs`} data-testid={`cell-config:${f}`}>
                    {r.config[f] ?? '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
