/**
 * A chart's data as CSV (RFC 4180): one row per x, one column per series, empty where a
 * series has no value. A band [low, high] becomes two columns. Pure; the browser download
 * lives in the chart component.
 */
/** `range`: the column holds [low, high] pairs (a band), written as two columns. */
export type CsvColumn = { key: string; label: string; range?: boolean };

const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const cell = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

export function chartCsv(xLabel: string, columns: CsvColumn[], rows: { x: number; [k: string]: unknown }[]): string {
  const header = [xLabel];
  for (const c of columns) {
    if (c.range || c.key === 'band') header.push(`${c.label} low`, `${c.label} high`);
    else header.push(c.label);
  }
  const lines = [header.map(quote).join(',')];
  for (const r of rows) {
    const out = [cell(r.x)];
    for (const c of columns) {
      const v = r[c.key];
      if (c.range || c.key === 'band') {
        const [lo, hi] = Array.isArray(v) ? (v as number[]) : [];
        out.push(cell(lo), cell(hi));
      } else out.push(cell(v));
    }
    lines.push(out.join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name from a chart name: letters, digits, dot, dash and underscore only. */
export const csvFileName = (name: string) => `${name.replace(/[^\w.-]+/g, '_') || 'chart'}.csv`;
