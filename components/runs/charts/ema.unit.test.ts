import { describe, expect, it } from 'vitest';
import { ema } from './ema';

describe('EMA smoothing', () => {
  it('weight 0 is the raw series', () => {
    expect(ema([1, 2, 3], 0)).toEqual([1, 2, 3]);
  });

  it('is debiased: a constant series stays constant from the first point', () => {
    for (const v of ema([0.5, 0.5, 0.5, 0.5], 0.9)) expect(v).toBeCloseTo(0.5, 12);
  });

  it('a one-step spike rises at its step and decays after, never before it (no spline hump)', () => {
    const s = ema([0, 0, 0, 10, 0, 0, 0], 0.6) as number[];
    expect(s.slice(0, 3)).toEqual([0, 0, 0]);
    expect(s[3]).toBeGreaterThan(0);
    expect(s[4]).toBeLessThan(s[3]!);
    expect(s[5]).toBeLessThan(s[4]!);
  });

  it('keeps gaps as gaps without resetting the average', () => {
    const s = ema([1, undefined, 1, Number.NaN, 1], 0.5);
    expect(s[1]).toBeUndefined();
    expect(s[3]).toBeUndefined();
    expect(s[4]).toBeCloseTo(1, 12);
  });
});
