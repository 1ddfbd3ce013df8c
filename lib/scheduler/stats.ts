/** Nearest-rank percentile of `sorted` (ascending); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN; // i is clamped into range; the fallback only satisfies the type
}

/** Jain's fairness index: 1 when all equal, 1/n when one takes everything. */
export function jain(xs: readonly number[]): number {
  if (xs.length === 0) return 1;
  let s = 0;
  let s2 = 0;
  for (const x of xs) {
    s += x;
    s2 += x * x;
  }
  return s2 === 0 ? 1 : (s * s) / (xs.length * s2);
}
