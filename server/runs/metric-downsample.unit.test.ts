import { describe, expect, it } from 'vitest';
import { bucketCount, downsampleFamily, type SamplePoint } from './metric-downsample';

/** A deterministic noisy series over steps 1..n with a spike and a dip planted inside buckets. */
function series(n: number, seed = 1): SamplePoint[] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 0.1;
  return Array.from({ length: n }, (_, i) => ({ step: i + 1, value: 0.5 + rand() }));
}

const valuesAt = (points: SamplePoint[], steps: number[]) => points.filter((p) => steps.includes(p.step)).map((p) => p.value);

describe('downsampleFamily (M4 per bucket of steps)', () => {
  it('keeps every step of a series no longer than the cap', () => {
    const s = series(400);
    expect(downsampleFamily([s], 400)).toEqual(s.map((p) => p.step));
  });

  it('bounds the kept steps by the cap, and keeps the first and last step and the global min and max', () => {
    const s = series(5_000);
    s[1234]!.value = 9; // a one-step spike in the middle of a bucket
    s[3210]!.value = -7; // and a dip
    const kept = downsampleFamily([s], 400);
    expect(kept.length).toBeLessThanOrEqual(400);
    expect(kept.length).toBeGreaterThan(200);
    expect(kept[0]).toBe(1);
    expect(kept.at(-1)).toBe(5_000);
    expect(kept).toContain(1235);
    expect(kept).toContain(3211);
    expect(Math.max(...valuesAt(s, kept))).toBe(9);
    expect(Math.min(...valuesAt(s, kept))).toBe(-7);
    expect([...kept].sort((a, b) => a - b)).toEqual(kept);
  });

  it("keeps each bucket's min and max, so the envelope of every bucket is exact", () => {
    const s = series(2_000, 7);
    const kept = new Set(downsampleFamily([s], 200));
    const buckets = bucketCount(200, 1);
    for (let b = 0; b < buckets; b++) {
      const inBucket = s.filter((p) => Math.floor(((p.step - 1) * buckets) / 2_000) === b);
      const keptIn = inBucket.filter((p) => kept.has(p.step));
      expect(Math.max(...keptIn.map((p) => p.value))).toBe(Math.max(...inBucket.map((p) => p.value)));
      expect(Math.min(...keptIn.map((p) => p.value))).toBe(Math.min(...inBucket.map((p) => p.value)));
    }
  });

  it("a family's members share their steps: each member's own min and max are kept, within the cap", () => {
    const mean = series(3_000, 2);
    const min = series(3_000, 3).map((p) => ({ ...p, value: p.value - 0.4 }));
    const max = series(3_000, 4).map((p) => ({ ...p, value: p.value + 0.4 }));
    min[2_500]!.value = -1; // the worst reward of the run, at a step where the mean is ordinary
    max[17]!.value = 5;
    const kept = downsampleFamily([mean, min, max], 300);
    expect(kept.length).toBeLessThanOrEqual(300);
    expect(kept).toContain(2_501);
    expect(kept).toContain(18);
  });

  it('never picks a non-finite value as an extreme (a skipped step is not a maximum)', () => {
    const s = series(1_000);
    s[500]!.value = NaN;
    s[600]!.value = Infinity;
    const kept = downsampleFamily([s], 100);
    const finiteMax = Math.max(...s.filter((p) => Number.isFinite(p.value)).map((p) => p.value));
    expect(Math.max(...valuesAt(s, kept).filter(Number.isFinite))).toBe(finiteMax);
    expect(kept.length).toBeLessThanOrEqual(100);
  });
});
