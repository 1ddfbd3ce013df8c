/**
 * Axis ticks and their labels for the metric charts. Pure (no React, no recharts) so the
 * rules are unit-tested: "nice" steps (1, 2, 5 × 10^k), labels with SI prefixes for large
 * values and scientific notation for tiny ones, never two equal labels on one axis, and a
 * sensible axis for a constant (e.g. all-zero) series.
 */

export type Axis = {
  domain: [number, number];
  ticks: number[];
  /** label of each tick; distinct for distinct ticks */
  format: (v: number) => string;
  /** pixels the longest label needs (so labels are never clipped) */
  width: number;
};

const SI: [number, string][] = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** The nice step (1, 2 or 5 × 10^k) that cuts `span` into about `target` pieces. */
export function niceStep(span: number, target = 5): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Drop floating-point noise (0.1 + 0.2) from a tick computed as k × step. */
const clean = (v: number, step: number) => {
  const digits = Math.max(0, Math.min(20, -Math.floor(Math.log10(step)) + 2));
  const r = Number(v.toFixed(digits));
  return Object.is(r, -0) ? 0 : r;
};

type Notation = 'si' | 'sci' | 'plain';

/** One notation per axis, from its largest magnitude: SI from 1000 up, scientific below 0.01. */
function notationFor(ticks: number[]): Notation {
  const a = Math.max(0, ...ticks.map(Math.abs));
  return a >= 1000 ? 'si' : a > 0 && a < 0.01 ? 'sci' : 'plain';
}

/** `v` rounded to `sig` significant digits, written without an exponent ("10", not "1e1"). */
const plain = (v: number, sig: number) => String(Number(v.toPrecision(sig)));

function formatIn(v: number, sig: number, notation: Notation): string {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return String(v);
  if (notation === 'sci') return trim(v.toExponential(Math.max(0, sig - 1)));
  if (notation === 'si') {
    const a = Math.abs(v);
    for (const [k, p] of SI) if (a >= k) return `${plain(v / k, sig)}${p}`;
  }
  return plain(v, sig);
}

/** A single number with `sig` significant digits: SI-prefixed from 1000 up, scientific below 1e-3. */
export function formatSi(v: number, sig = 3): string {
  const a = Math.abs(v);
  return formatIn(v, sig, a >= 1000 ? 'si' : a > 0 && a < 1e-3 ? 'sci' : 'plain');
}

/** "1.50e-4" → "1.5e-4"; "1.0e+1" → "1e1". */
function trim(s: string): string {
  const [m, e] = s.split('e');
  const mant = m!.includes('.') ? m!.replace(/0+$/, '').replace(/\.$/, '') : m!;
  return e === undefined ? mant : `${mant}e${Number(e)}`;
}

/**
 * A formatter for these ticks: one notation for the whole axis, and the fewest significant
 * digits (from 1 up) that give every tick its own label.
 */
export function tickFormatter(ticks: number[]): (v: number) => string {
  const notation = notationFor(ticks);
  const distinct = new Set(ticks).size;
  for (let sig = 1; sig <= 12; sig++) {
    if (new Set(ticks.map((t) => formatIn(t, sig, notation))).size === distinct) return (v: number) => formatIn(v, sig, notation);
  }
  return (v: number) => String(v);
}

/** A constant series' axis: around the value, or [0, 1] for all zeros. */
function constantDomain(v: number): [number, number] {
  if (v === 0) return [0, 1];
  const pad = Math.abs(v) * 0.1;
  return [v - pad, v + pad];
}

const widthOf = (labels: string[]) => Math.max(24, 8 + 6.2 * Math.max(0, ...labels.map((l) => l.length)));

/** A linear axis covering `values` (non-finite ones ignored), with nice ticks. */
export function linearAxis(values: number[], target = 5): Axis {
  const finite = values.filter(Number.isFinite);
  let [lo, hi] = finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
  // a series constant but for float noise (4 and 4.000000000000001) is constant: ticks of its noise would all print 4
  if (hi - lo <= Math.max(Math.abs(lo), Math.abs(hi)) * 1e-9) [lo, hi] = constantDomain(lo);
  const step = niceStep(hi - lo, target);
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let k = 0; start + k * step <= end + step * 1e-9 && k < 100; k++) ticks.push(clean(start + k * step, step));
  const format = tickFormatter(ticks);
  return { domain: [ticks[0]!, ticks[ticks.length - 1]!], ticks, format, width: widthOf(ticks.map(format)) };
}

/** A linear axis of whole numbers (iterations, episodes): steps of at least 1. */
export function integerAxis(values: number[], target = 5): Axis {
  const finite = values.filter(Number.isFinite);
  const lo = finite.length ? Math.floor(Math.min(...finite)) : 0;
  const hi = Math.max(lo + 1, finite.length ? Math.ceil(Math.max(...finite)) : 1);
  const step = Math.max(1, Math.round(niceStep(hi - lo, target)));
  const start = Math.floor(lo / step) * step;
  const ticks: number[] = [];
  for (let t = start; t < hi + step && ticks.length < 100; t += step) ticks.push(t);
  const format = tickFormatter(ticks);
  return { domain: [ticks[0]!, ticks[ticks.length - 1]!], ticks, format, width: widthOf(ticks.map(format)) };
}

/**
 * A log10 axis over the positive `values` (a log axis cannot show zero or negatives; the
 * caller says so). Ticks at powers of ten, thinned to at most about eight.
 */
export function logAxis(values: number[]): Axis & { hidden: number } {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  const hidden = values.filter((v) => Number.isFinite(v) && v <= 0).length;
  let [lo, hi] = positive.length ? [Math.min(...positive), Math.max(...positive)] : [1, 10];
  let a = Math.floor(Math.log10(lo));
  let b = Math.ceil(Math.log10(hi));
  if (a === b) [a, b] = [a - 1, b + 1];
  const every = Math.max(1, Math.ceil((b - a) / 8));
  const ticks: number[] = [];
  for (let e = a; e <= b; e += every) ticks.push(Number(`1e${e}`));
  if (ticks[ticks.length - 1]! < Number(`1e${b}`)) ticks.push(Number(`1e${b}`));
  [lo, hi] = [ticks[0]!, ticks[ticks.length - 1]!];
  const format = tickFormatter(ticks);
  return { domain: [lo, hi], ticks, format, width: widthOf(ticks.map(format)), hidden };
}

/** Elapsed seconds as a short duration label: 45s, 12m, 1.5h. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0';
  const a = Math.abs(seconds);
  if (a < 120) return `${plain(seconds, 3)}s`;
  if (a < 7200) return `${plain(seconds / 60, 3)}m`;
  return `${plain(seconds / 3600, 3)}h`;
}

/** A linear axis of elapsed seconds, stepped in whole seconds, minutes or hours. */
export function durationAxis(values: number[]): Axis {
  const finite = values.filter(Number.isFinite);
  const max = finite.length ? Math.max(...finite) : 0;
  const unit = max < 120 ? 1 : max < 7200 ? 60 : 3600;
  const scaled = linearAxis(
    finite.map((v) => v / unit),
    5,
  );
  const ticks = scaled.ticks.map((t) => t * unit);
  // one unit for the whole axis ("60m, 90m, 120m", not "60m, 1.5h, 2h")
  const suffix = unit === 1 ? 's' : unit === 60 ? 'm' : 'h';
  const format = (v: number) => (v === 0 ? '0' : `${scaled.format(v / unit)}${suffix}`);
  return { domain: [ticks[0]!, ticks[ticks.length - 1]!], ticks, format, width: widthOf(ticks.map(format)) };
}
