/**
 * Exponential moving average as Weights & Biases draws it: weight w in [0, 1) (0 = raw),
 * debiased so the first points are not pulled towards zero. Gaps (undefined, a skipped step)
 * stay gaps and do not reset the average. Pure; no interpolation: a one-step spike stays one
 * step wide in the raw line and decays over the following steps in the smoothed one.
 */
export function ema(values: (number | undefined)[], weight: number): (number | undefined)[] {
  const w = Math.min(0.999, Math.max(0, weight));
  if (w === 0) return [...values];
  let acc = 0;
  let n = 0;
  return values.map((v) => {
    if (v === undefined || !Number.isFinite(v)) return undefined;
    acc = acc * w + (1 - w) * v;
    n += 1;
    return acc / (1 - w ** n);
  });
}
