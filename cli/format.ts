import { terminalSafe } from './terminal-safe';

/** Fixed-width text table for terminal output. Cells are made terminal-safe before widths are measured. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : v instanceof Date ? v.toISOString().replace('T', ' ').slice(0, 19) : terminalSafe(String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}
