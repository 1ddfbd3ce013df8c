export const VERDICTS = ['correct', 'false_negative', 'false_positive', 'unclear'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Cohen's kappa for two raters over the same items: (po − pe) / (1 − pe), where po is the
 * observed agreement and pe the agreement expected from each rater's marginals. Returns
 * null when there are no items; 1 when both raters used one identical category throughout.
 */
export function cohensKappa(pairs: [Verdict, Verdict][]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const a = new Map<Verdict, number>();
  const b = new Map<Verdict, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    if (x === y) agree++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const v of VERDICTS) pe += ((a.get(v) ?? 0) / n) * ((b.get(v) ?? 0) / n);
  if (pe === 1) return 1;
  return (po - pe) / (1 - pe);
}
