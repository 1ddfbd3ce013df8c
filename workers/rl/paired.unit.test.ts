import { describe, expect, it } from 'vitest';
import { binomialUpperTail, comparePairs, mcnemarOneSided, pairedDifferenceCI, signFlipTest, type Pair } from './paired';

describe('paired statistics of a run against its control arm', () => {
  it('binomial tail is exact (against hand-computed sums) and stable for large n', () => {
    expect(binomialUpperTail(8, 10)).toBeCloseTo((45 + 10 + 1) / 1024, 12);
    expect(binomialUpperTail(0, 10)).toBe(1);
    expect(binomialUpperTail(11, 10)).toBe(0);
    expect(binomialUpperTail(5, 10)).toBeCloseTo(638 / 1024, 12);
    // symmetric: P(X ≥ 2001) of Bin(4000, ½) + P(X ≥ 2000) = 1
    expect(binomialUpperTail(2001, 4000) + binomialUpperTail(2000, 4000)).toBeCloseTo(1, 9);
  });

  it('McNemar: no discordant pair is no evidence (p = 1), lopsided ones are', () => {
    expect(mcnemarOneSided(0, 0).p).toBe(1);
    expect(mcnemarOneSided(5, 5).p).toBeGreaterThan(0.5);
    expect(mcnemarOneSided(20, 2).p).toBeCloseTo((1 + 22 + 231) / 2 ** 22, 12);
    expect(mcnemarOneSided(2, 20).p).toBeGreaterThan(0.99);
  });

  it('sign-flip test is exact for small n and ignores zero differences', () => {
    expect(signFlipTest([0.5, 0.25, 0.1]).p).toBeCloseTo(1 / 8, 12);
    expect(signFlipTest([1, -1]).p).toBeCloseTo(3 / 4, 12);
    expect(signFlipTest([0, 0]).p).toBe(1);
    expect(signFlipTest(Array.from({ length: 24 }, () => 0.3)).p).toBeLessThan(1e-4);
  });

  it('the gain interval is centred on (b − c)/n and excludes 0 only for a clear difference', () => {
    const ci = pairedDifferenceCI(30, 10, 200);
    expect(ci.gain).toBeCloseTo(0.1, 12);
    expect(ci.low).toBeGreaterThan(0);
    const even = pairedDifferenceCI(10, 10, 200);
    expect(even.low).toBeLessThan(0);
    expect(even.high).toBeGreaterThan(0);
  });

  it('summarises pairs per episode and per task', () => {
    const pair = (task: string, main: boolean, control: boolean): Pair => ({
      iteration: 1,
      group: 0,
      sample: 0,
      task,
      main: { solved: main, reward: +main },
      control: { solved: control, reward: +control },
    });
    const r = comparePairs([pair('a', true, false), pair('a', true, true), pair('b', false, true), pair('b', false, false)]);
    expect(r.pairs).toBe(4);
    expect(r.solved).toEqual({ main: 0.5, control: 0.5 });
    expect([r.mcnemar.b, r.mcnemar.c]).toEqual([1, 1]);
    expect([r.tasks.improved, r.tasks.worse]).toEqual([1, 1]);
    expect(r.tasks.perTask.map((t) => t.task)).toEqual(['a', 'b']);
  });
});
