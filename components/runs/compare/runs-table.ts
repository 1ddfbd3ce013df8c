import { flattenConfig, rankConfigFields } from './config-diff';

/**
 * The compare page's runs table: one row per run with its progress, latest reward and
 * held-out pass@1, and the config columns the reader chose; sortable by any column. Pure,
 * so the ordering rules are unit-tested (runs-table.unit.test.ts).
 */

export type TableRun = { id: string; name: string; status: string; currentIteration: number; iterations: number; config: unknown };
export type TableSample = { runId: string; name: string; step: number | null; value: number };

export type RunsTableRow = {
  id: string;
  name: string;
  status: string;
  /** share of iterations trained, 0..1 */
  progress: number;
  iteration: string;
  /** the last step's value of each metric (null: none recorded, or withheld) */
  reward: number | null;
  heldout: number | null;
  config: Record<string, string>;
};

export const FIXED_COLUMNS = [
  { key: 'name', label: 'run' },
  { key: 'status', label: 'status' },
  { key: 'progress', label: 'iteration' },
  { key: 'reward', label: 'reward (last)' },
  { key: 'heldout', label: 'held-out pass@1 (last)' },
] as const;
export type SortKey = (typeof FIXED_COLUMNS)[number]['key'] | `config:${string}`;
export type SortDir = 'asc' | 'desc';

/** The value of metric `name` at the run's last step that has it. */
function lastValue(samples: TableSample[], runId: string, name: string): number | null {
  let best: TableSample | null = null;
  for (const s of samples) if (s.runId === runId && s.name === name && Number.isFinite(s.value) && (!best || (s.step ?? -1) >= (best.step ?? -1))) best = s;
  return best?.value ?? null;
}

export function runsTableRows(runs: TableRun[], samples: TableSample[]): RunsTableRow[] {
  return runs.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    progress: r.iterations > 0 ? r.currentIteration / r.iterations : 0,
    iteration: `${r.currentIteration} / ${r.iterations}`,
    reward: lastValue(samples, r.id, 'reward_mean'),
    heldout: lastValue(samples, r.id, 'heldout_pass_at_1'),
    config: flattenConfig(r.config),
  }));
}

/** What a cell sorts by: a number where the value is one (config values are strings: "0.001", "4"), else its text; null when empty. */
function sortValue(row: RunsTableRow, key: SortKey): number | string | null {
  if (key.startsWith('config:')) {
    const v = row.config[key.slice('config:'.length)];
    if (v === undefined || v === '—') return null;
    return v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  const v = row[key as keyof RunsTableRow];
  return typeof v === 'number' || typeof v === 'string' ? v : null;
}

/** Rows sorted by `key` (numbers numerically, text naturally); empty cells last either way; ties keep their order. */
export function sortRows(rows: RunsTableRow[], key: SortKey, dir: SortDir): RunsTableRow[] {
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: sortValue(row, key) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      const c =
        typeof a.v === 'number' && typeof b.v === 'number'
          ? a.v - b.v
          : String(a.v).localeCompare(String(b.v), undefined, { numeric: true, sensitivity: 'base' });
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((x) => x.row);
}

/** Next sort state after clicking `key`'s header: a new column sorts ascending (numbers: descending first for metrics), the same one flips. */
export function nextSort(current: { key: SortKey; dir: SortDir }, key: SortKey): { key: SortKey; dir: SortDir } {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: key === 'reward' || key === 'heldout' || key === 'progress' ? 'desc' : 'asc' };
}

/**
 * Config columns shown before the reader picks: the fields that differ, learning rate,
 * algorithm, model and suite first (config-diff.ts's ranking), at most `max`.
 */
export const defaultConfigColumns = (differing: string[], max = 4) => rankConfigFields(differing).slice(0, max);
