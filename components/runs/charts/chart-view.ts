import type { ChartPoint, ChartSpec } from '../metric-groups';
import { ema } from './ema';
import { durationAxis, integerAxis, linearAxis, logAxis, type Axis } from './ticks';

/**
 * What one metric panel draws under the chart controls (smoothing, log y, x-axis, hidden
 * series): rows for recharts, the lines with their styles, and both axes. Pure, so the
 * rules are unit-tested; metric-charts.tsx only renders the result.
 */

export const X_MODES = ['iteration', 'time', 'episodes', 'tokens'] as const;
export type XMode = (typeof X_MODES)[number];
export const X_LABELS: Record<XMode, string> = { iteration: 'iteration', time: 'time since start', episodes: 'episodes', tokens: 'generated tokens' };

export type ChartControls = {
  /** EMA weight in [0, 1): 0 draws the raw series only */
  smoothing: number;
  logY: boolean;
  x: XMode;
};

/** Per series key (a run, or "value"/"arm" on a run page): what maps a step onto time and episodes. */
export type XContext = {
  /** the run's start (epoch ms); else the series' first sample */
  startMs?: (seriesKey: string) => number | undefined;
  /** episodes the run plays per iteration (group size × tasks per iteration) */
  episodesPerStep?: (seriesKey: string) => number | undefined;
  /** policy tokens generated up to and including a step; undefined when the run has no count */
  tokensAtStep?: (seriesKey: string, step: number) => number | undefined;
};

/**
 * `tokensAtStep` from a run's cumulative [step, tokens] pairs (ascending steps): a step before
 * the first count has generated nothing yet.
 */
export function tokensLookup(cumulative: [number, number][] | undefined): ((step: number) => number) | undefined {
  if (!cumulative || cumulative.length === 0) return undefined;
  return (step) => {
    let lo = 0;
    let hi = cumulative.length - 1;
    if (step < cumulative[0]![0]) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cumulative[mid]![0] <= step) lo = mid;
      else hi = mid - 1;
    }
    return cumulative[lo]![1];
  };
}

export type ViewLine = { key: string; label: string; color: string; dashed?: boolean; faint?: boolean };
export type ViewRow = { x: number; [key: string]: number | [number, number] | undefined };
export type ChartView = {
  rows: ViewRow[];
  lines: ViewLine[];
  band: boolean;
  /** the series' own ranges (ChartSpec.bands) whose series are shown */
  bands: { key: string; color: string; label: string }[];
  x: Axis;
  y: Axis;
  xLabel: string;
  /** values a log axis cannot show (≤ 0), left out */
  hiddenByLog: number;
};

/** Which x modes these charts can offer: time needs sample times, episodes a per-iteration count, tokens the runs' token counts. */
export function availableXModes(charts: ChartSpec[], ctx: XContext): XMode[] {
  const keys = charts.flatMap((c) => c.series.map((s) => s.key));
  return X_MODES.filter(
    (m) =>
      m === 'iteration' ||
      (m === 'time' && charts.some((c) => c.times && Object.keys(c.times).length > 0)) ||
      (m === 'episodes' && keys.some((k) => (ctx.episodesPerStep?.(k) ?? 0) > 0)) ||
      (m === 'tokens' && keys.some((k) => ctx.tokensAtStep?.(k, Number.MAX_SAFE_INTEGER) !== undefined)),
  );
}

/** Series drawn from another series' samples (the reward band and min/max) take its times. */
const timeKey = (spec: ChartSpec, key: string) => (spec.times?.[key] ? key : 'value');

/** Map a step of series `key` onto the chosen x, or undefined when it has none there. */
function xOf(spec: ChartSpec, key: string, step: number, mode: XMode, ctx: XContext): number | undefined {
  if (mode === 'iteration') return step;
  if (mode === 'episodes') {
    const per = ctx.episodesPerStep?.(key) ?? ctx.episodesPerStep?.('value');
    return per ? step * per : undefined;
  }
  if (mode === 'tokens') return ctx.tokensAtStep?.(key, step) ?? ctx.tokensAtStep?.('value', step);
  const own = spec.times?.[timeKey(spec, key)];
  const t = own?.[step];
  if (t === undefined) return undefined;
  const start = ctx.startMs?.(key) ?? Math.min(...Object.values(own!));
  return Math.max(0, (t - start) / 1000);
}

/** Re-key the step-indexed points onto the chosen x (rows merged where x coincides). */
function rekey(spec: ChartSpec, keys: string[], mode: XMode, ctx: XContext): ViewRow[] {
  if (mode === 'iteration') return spec.points.map((p) => ({ ...p }) as ViewRow);
  const rows = new Map<number, ViewRow>();
  for (const p of spec.points) {
    for (const key of keys) {
      const v = p[key];
      if (v === undefined) continue;
      const x = xOf(spec, key, p.x, mode, ctx);
      if (x === undefined) continue;
      const row = rows.get(x) ?? { x };
      row[key] = v as ViewRow[string];
      rows.set(x, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.x - b.x);
}

const SMOOTH_SUFFIX = '__ema';

export function chartView(spec: ChartSpec, controls: ChartControls, hidden: ReadonlySet<string>, ctx: XContext, palette: string[]): ChartView {
  // min/max and the band belong to the main series: hidden with it
  const mainHidden = hidden.has('value');
  const visible = spec.series.filter((s) => !hidden.has(s.key) && !(s.dashed && mainHidden));
  const showBand = !!spec.band && !mainHidden;
  const bands = (spec.bands ?? []).filter((b) => visible.some((s) => s.key === b.of)).map(({ key, color, label }) => ({ key, color, label }));
  const rangeKeys = [...(showBand ? ['band'] : []), ...bands.map((b) => b.key)];
  const keys = [...visible.map((s) => s.key), ...rangeKeys];
  let rows = rekey(spec, keys, controls.x, ctx);

  const lines: ViewLine[] = [];
  spec.series.forEach((s, i) => {
    if (!visible.includes(s)) return;
    const color = s.dashed ? '#94a3b8' : (s.color ?? palette[i % palette.length]!);
    const smooth = controls.smoothing > 0 && !s.dashed;
    if (smooth) {
      const smoothed = ema(
        rows.map((r) => r[s.key] as number | undefined),
        controls.smoothing,
      );
      rows = rows.map((r, j) => (smoothed[j] === undefined ? r : { ...r, [s.key + SMOOTH_SUFFIX]: smoothed[j] }));
      // raw values stay behind the smoothed line, faint, as in W&B
      lines.push({ key: s.key, label: `${s.label} (raw)`, color, faint: true });
      lines.push({ key: s.key + SMOOTH_SUFFIX, label: s.label, color });
    } else lines.push({ key: s.key, label: s.label, color, dashed: s.dashed });
  });

  const values: number[] = [];
  for (const r of rows) {
    for (const l of lines) if (typeof r[l.key] === 'number') values.push(r[l.key] as number);
    for (const k of rangeKeys) if (Array.isArray(r[k])) values.push(...(r[k] as [number, number]));
  }

  let hiddenByLog = 0;
  let y: Axis;
  if (controls.logY) {
    const log = logAxis(values);
    hiddenByLog = log.hidden;
    y = log;
    // a log axis has no place for values ≤ 0: those points become gaps; the band's low end is clipped to the axis
    rows = rows.map((r) => {
      const out: ViewRow = { ...r };
      for (const l of lines) if (typeof out[l.key] === 'number' && (out[l.key] as number) <= 0) out[l.key] = undefined;
      for (const k of rangeKeys) {
        const b = out[k];
        if (Array.isArray(b)) out[k] = b[1] > 0 ? [Math.max(b[0], log.domain[0]), b[1]] : undefined;
      }
      return out;
    });
  } else y = linearAxis(values);

  const xs = rows.map((r) => r.x);
  let x: Axis;
  if (controls.x === 'time') x = durationAxis(xs);
  // iterations, episodes and tokens are whole numbers: no 0.5 ticks
  else x = integerAxis(xs, 6);
  return { rows, lines, band: showBand, bands, x, y, xLabel: X_LABELS[controls.x], hiddenByLog };
}

/** The rows as step-indexed points again (for the CSV of what the panel shows, raw values only). */
export const rawColumns = (spec: ChartSpec, hidden: ReadonlySet<string>) => [
  ...spec.series.filter((s) => !hidden.has(s.key)).map((s) => ({ key: s.key, label: s.label })),
  ...(spec.band && !hidden.has('value') ? [{ key: 'band', label: '±1 std', range: true }] : []),
  ...(spec.bands ?? []).filter((b) => !hidden.has(b.of)).map((b) => ({ key: b.key, label: b.label, range: true })),
];

export type { ChartPoint };
