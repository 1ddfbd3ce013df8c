import { describe, expect, it } from 'vitest';
import { compareCharts, type MetricSampleView } from './metric-groups';
import { groupRuns } from './compare/group-runs';
import { comparePalette, groupColors, hashKey, runColors, stableColors } from './run-colors';

const ids = [
  '3f1c2a90-0000-4000-8000-000000000001',
  '9b7e44d2-0000-4000-8000-000000000002',
  '0a55c1e3-0000-4000-8000-000000000003',
  'c2d9f801-0000-4000-8000-000000000004',
];
const run = (id: string, learningRate: number, algorithm: string) => ({ id, name: id.slice(0, 4), config: { learningRate, algorithm } });
const runs = [run(ids[0]!, 0.001, 'grpo'), run(ids[1]!, 0.01, 'grpo'), run(ids[2]!, 0.001, 'ppo'), run(ids[3]!, 0.01, 'ppo')];
const sample = (runId: string): MetricSampleView => ({ runId, name: 'reward_mean', step: 1, value: 0.5, at: 1_000 });
const seriesColors = (rs: typeof runs) =>
  new Map(
    compareCharts(
      rs,
      rs.map((r) => sample(r.id)),
    )[0]!.charts[0]!.series.map((s) => [s.key, s.color]),
  );

describe('stable run colours on the compare page', () => {
  it('gives distinct colours while the palette lasts, from the id, the same every time', () => {
    const c = runColors(ids);
    expect(new Set(c.values()).size).toBe(4);
    expect(runColors(ids)).toEqual(c);
    expect(hashKey('abc')).toBe(hashKey('abc'));
    // the first run takes the colour its id hashes to
    expect(c.get(ids[0]!)).toBe(comparePalette[hashKey(ids[0]!) % comparePalette.length]);
  });

  it('keeps every run’s colour when another run joins or leaves the comparison', () => {
    const all = runColors(ids);
    const added = runColors([...ids, 'f00dbabe-0000-4000-8000-000000000005']);
    for (const id of ids) expect(added.get(id)).toBe(all.get(id));
    // a run leaving: the others keep theirs (none of these had to step aside for it)
    for (const leaving of ids) {
      const rest = ids.filter((id) => id !== leaving);
      const after = runColors(rest);
      for (const id of rest) expect(after.get(id), `${leaving} left`).toBe(all.get(id));
    }
  });

  it('a run whose colour is taken steps to the next free one; colours repeat only past the palette', () => {
    const colors = ['r', 'g', 'b'];
    // find two keys hashing to the same colour
    const keys = Array.from({ length: 40 }, (_, i) => `run-${i}`);
    const a = keys[0]!;
    const b = keys.find((k) => k !== a && hashKey(k) % 3 === hashKey(a) % 3)!;
    const c = stableColors([a, b], colors);
    expect(c.get(a)).toBe(colors[hashKey(a) % 3]);
    expect(c.get(b)).toBe(colors[(hashKey(a) + 1) % 3]);
    // with a gone, b takes back the colour its id picks
    expect(stableColors([b], colors).get(b)).toBe(colors[hashKey(b) % 3]);
    expect(new Set(stableColors(keys.slice(0, 3), colors).values()).size).toBe(3);
    const six = [...stableColors(keys.slice(0, 6), colors).values()];
    expect(colors.map((x) => six.filter((y) => y === x).length)).toEqual([2, 2, 2]);
  });

  it('draws a run in the same colour ungrouped, in any order of the others, and with runs added', () => {
    const base = seriesColors(runs);
    expect(base.get(ids[2]!)).toBe(runColors(ids).get(ids[2]!));
    const fewer = seriesColors(runs.filter((r) => r.id !== ids[0]));
    for (const id of ids.slice(1)) expect(fewer.get(id)).toBe(base.get(id));
  });
});

describe('stable group colours', () => {
  it('a group’s colour hangs on its field and value, not on which other groups there are', () => {
    const byLr = groupRuns(runs, 'learningRate');
    expect(byLr.map((g) => g.value)).toEqual(['0.001', '0.01']);
    expect(new Set(byLr.map((g) => g.color)).size).toBe(2);
    // with a third learning rate in the comparison, 0.001 and 0.01 keep theirs
    const more = groupRuns([...runs, run('e', 0.0001, 'grpo')], 'learningRate');
    for (const g of byLr) expect(more.find((m) => m.value === g.value)!.color).toBe(g.color);
    // with one of its runs gone, a group keeps its colour
    expect(groupRuns(runs.slice(1), 'learningRate').find((g) => g.value === '0.01')!.color).toBe(byLr[1]!.color);
    // and the colour is the field's and value's: the same on every visit
    expect(groupColors('learningRate', ['0.001', '0.01'])).toEqual(new Map(byLr.map((g) => [g.value, g.color])));
  });
});
