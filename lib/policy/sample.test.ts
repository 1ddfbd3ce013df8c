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

/**
 * The truncated, tempered distribution computed the slow, obvious way (sort everything), to
 * check the O(V) choice against: pick's chance of each token is measured exactly by feeding it
 * a grid of uniforms (each token owns an interval of [0, 1)), so no statistics are involved.
 */
function reference(lp: Float32Array, o: { temperature: number; topK: number; topP: number }): Map<number, number> {
  const order = Array.from(lp.keys()).sort((a, b) => lp[b]! - lp[a]! || a - b);
  const top = order.slice(0, o.topK > 0 ? o.topK : lp.length);
  const w = top.map((i) => Math.exp((lp[i]! - lp[top[0]!]!) / o.temperature));
  const total = w.reduce((a, b) => a + b, 0);
  let keep = top.length;
  if (o.topP < 1) {
    let acc = 0;
    keep = top.findIndex((_, i) => (acc += w[i]! / total) >= o.topP) + 1 || top.length;
  }
  const kept = w.slice(0, keep).reduce((a, b) => a + b, 0);
  return new Map(top.slice(0, keep).map((id, i) => [id, w[i]! / kept]));
}

describe('token choice in O(V) matches the sorted distribution exactly', () => {
  const V = 3000;
  const gen = new Rng(7);
  // a peaked, realistic row: a few likely tokens, a long tail
  const logits = Float32Array.from({ length: V }, (_, i) => (i % 97 === 0 ? 6 : 0) + 3 * Math.log(gen.next() + 1e-9));
  let lse = -Infinity;
  for (const l of logits) lse = Math.max(lse, l) + Math.log1p(Math.exp(-Math.abs(Math.max(lse, l) - Math.min(lse, l))));
  const lp = logits.map((l) => l - lse);
  const N = 20_000;
  const grid = { j: 0, next: () => (grid.j++ + 0.5) / N };
  for (const o of [
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 0, topP: 1 },
    { temperature: 1, topK: 40, topP: 1 },
    { temperature: 0.8, topK: 0, topP: 0.9 },
    { temperature: 1.3, topK: 0, topP: 0.5 },
    { temperature: 1, topK: 200, topP: 0.95 },
  ])
    it(`T=${o.temperature} top-k=${o.topK} top-p=${o.topP}`, () => {
      grid.j = 0;
      const counts = new Map<number, number>();
      for (let n = 0; n < N; n++) {
        const id = pick(lp, o, grid as unknown as Rng);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      const want = reference(lp, o);
      for (const id of counts.keys()) expect(want.has(id), `token ${id} is outside the truncated distribution`).toBe(true);
      // each token's share of the grid is its probability, to within the grid's resolution
      for (const [id, p] of want) expect(Math.abs((counts.get(id) ?? 0) / N - p)).toBeLessThanOrEqual(2 / N);
    });
});
