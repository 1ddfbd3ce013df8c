import { describe, expect, it } from 'vitest';
import type { ChartSpec, SectionView } from '../metric-groups';
import { chartSignature, reuseUnchanged, type ChartCache } from './stable-charts';

const chart = (name: string, ys: number[], extra: Partial<ChartSpec> = {}): ChartSpec => ({
  name,
  series: [{ key: 'value', label: name }],
  points: ys.map((y, x) => ({ x, value: y })),
  ...extra,
});
const sections = (...charts: ChartSpec[]): SectionView[] => [{ title: 'Reward', charts }];

describe('chartSignature', () => {
  it('is equal for equal content and differs when any drawn part changes', () => {
    const a = chart('reward_mean', [0.1, 0.2, 0.3]);
    expect(chartSignature(a)).toBe(chartSignature(chart('reward_mean', [0.1, 0.2, 0.3])));
    const variants: ChartSpec[] = [
      chart('reward_mean', [0.1, 0.2, 0.31]), // one value
      chart('reward_mean', [0.1, 0.2, 0.3, 0.4]), // a new point
      chart('reward_mean', [0.1, 0.25, 0.3]), // a value in the middle (a downsampled bucket moved)
      chart('reward_mean', [0.1, 0.2, 0.3], { downsampled: true }),
      chart('reward_mean', [0.1, 0.2, 0.3], { series: [{ key: 'value', label: 'reward_mean', color: '#000' }] }),
      chart('reward_mean', [0.1, 0.2, 0.3], { times: { value: { 0: 1, 1: 2, 2: 3 } } }),
      { ...a, points: a.points.map((p) => ({ ...p, band: [0, 1] as [number, number] })) },
    ];
    for (const v of variants) expect(chartSignature(v)).not.toBe(chartSignature(a));
  });
});

describe('reuseUnchanged', () => {
  it('keeps the previous object of an unchanged chart and takes the new one of a changed chart', () => {
    let cache: ChartCache = new Map();
    const first = reuseUnchanged(sections(chart('reward_mean', [1, 2]), chart('kl', [0, 0])), cache);
    cache = first.cache;
    const second = reuseUnchanged(sections(chart('reward_mean', [1, 2, 3]), chart('kl', [0, 0])), cache);
    const [reward1, kl1] = first.sections[0]!.charts;
    const [reward2, kl2] = second.sections[0]!.charts;
    expect(kl2).toBe(kl1); // same content: same object, so its panel is skipped
    expect(reward2).not.toBe(reward1);
    expect(reward2!.points).toHaveLength(3);
  });

  it('forgets charts that are gone', () => {
    const first = reuseUnchanged(sections(chart('a', [1]), chart('b', [1])), new Map());
    const second = reuseUnchanged(sections(chart('a', [1])), first.cache);
    expect([...second.cache.keys()]).toEqual(['Reward\u0000a']);
  });
});
