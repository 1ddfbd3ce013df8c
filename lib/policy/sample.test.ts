import { describe, expect, it } from 'vitest';
import { Rng } from '@/core/random';
import { pick, SampleOptions } from './sample';

const row = (ps: number[]) => Float32Array.from(ps.map(Math.log));
const freq = (lp: Float32Array, o: Partial<SampleOptions>, n = 4000) => {
  const rng = new Rng(1);
  const opts = SampleOptions.parse(o);
  const counts = new Array<number>(lp.length).fill(0);
  for (let i = 0; i < n; i++) counts[pick(lp, opts, rng)]!++;
  return counts.map((c) => c / n);
};

describe('token choice', () => {
  const lp = row([0.5, 0.3, 0.15, 0.05]);
  it('samples the distribution at temperature 1', () => {
    const f = freq(lp, {});
    [0.5, 0.3, 0.15, 0.05].forEach((p, i) => expect(Math.abs(f[i]! - p)).toBeLessThan(0.03));
  });
  it('is greedy at temperature 0', () => {
    expect(freq(lp, { temperature: 0 }, 10)).toEqual([1, 0, 0, 0]);
  });
  it('top-k keeps only the k most likely', () => {
    const f = freq(lp, { topK: 2 });
    expect(f[2]! + f[3]!).toBe(0);
    expect(Math.abs(f[0]! - 0.625)).toBeLessThan(0.03);
  });
  it('top-p keeps the smallest set reaching p', () => {
    const f = freq(lp, { topP: 0.75 });
    expect(f[2]! + f[3]!).toBe(0);
    expect(f[1]!).toBeGreaterThan(0.3);
  });
  it('low temperature sharpens', () => {
    expect(freq(lp, { temperature: 0.25 })[0]!).toBeGreaterThan(0.85);
  });
  it('the RNG replays from its seed', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(new Rng(43).next()).not.toBe(new Rng(42).next());
  });
});
