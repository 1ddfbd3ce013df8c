import { describe, expect, it } from 'vitest';
import { compareCharts, type MetricSampleView } from '../metric-groups';
import { chartView } from '../charts/chart-view';
import { groupableFields, groupChart, groupRuns, groupedSections, valueAt } from './group-runs';

const run = (id: string, learningRate: number, seed: number) => ({ id, name: id, config: { learningRate, seed, review: { rate: 0.05 } } });
const s = (runId: string, step: number, value: number, name = 'reward_mean'): MetricSampleView => ({ runId, name, step, value, at: 1_000 + step });

describe('grouping compared runs by a config field', () => {
  const runs = [run('a', 0.001, 1), run('b', 0.01, 2), run('c', 0.001, 3), run('d', 0.0001, 4)];

  it('offers the fields that differ and groups by value, numbers in numeric order', () => {
    expect(groupableFields(runs)).toEqual(['learningRate', 'seed']);
    const groups = groupRuns(runs, 'learningRate');
    expect(groups.map((g) => [g.value, g.runIds])).toEqual([
      ['0.0001', ['d']],
      ['0.001', ['a', 'c']],
      ['0.01', ['b']],
    ]);
    expect(groups[1]!.label).toBe('learningRate = 0.001 (2 runs)');
    expect(new Set(groups.map((g) => g.color)).size).toBe(3);
  });

  it('draws each group as the mean of its runs with a min – max band, one line for a single run', () => {
    const samples = [s('a', 1, 0.2), s('a', 2, 0.4), s('c', 1, 0.4), s('c', 2, 0.8), s('b', 1, 0.9), s('d', 1, 0.1)];
    const chart = compareCharts(runs, samples)[0]!.charts[0]!;
    const g = groupChart(chart, groupRuns(runs, 'learningRate'));
    expect(g.series.map((x) => x.label)).toEqual(['learningRate = 0.0001 (1 run)', 'learningRate = 0.001 (2 runs)', 'learningRate = 0.01 (1 run)']);
    const at = (x: number) => g.points.find((p) => p.x === x)!;
    expect(at(1)['group:0.001']).toBeCloseTo(0.3);
    expect(at(1)['group:0.001:range']).toEqual([0.2, 0.4]);
    expect(at(2)['group:0.001']).toBeCloseTo(0.6);
    expect(at(1)['group:0.01']).toBe(0.9);
    // one run: no band
    expect(at(1)['group:0.01:range']).toBeUndefined();
    expect(g.bands!.map((b) => b.of)).toEqual(['group:0.001']);
    // the chart draws the band, and hides it with its group's line
    const view = chartView(g, { smoothing: 0, logY: false, x: 'iteration' }, new Set(), {}, []);
    expect(view.bands.map((b) => b.key)).toEqual(['group:0.001:range']);
    expect(view.y.domain[1]).toBeGreaterThanOrEqual(0.9);
    expect(chartView(g, { smoothing: 0, logY: false, x: 'iteration' }, new Set(['group:0.001']), {}, []).bands).toEqual([]);
  });

  it('aligns runs downsampled onto different steps by interpolating between their samples', () => {
    expect(
      valueAt(
        [
          [0, 0],
          [10, 1],
        ],
        5,
      ),
    ).toBeCloseTo(0.5);
    expect(
      valueAt(
        [
          [0, 0],
          [10, 1],
        ],
        10,
      ),
    ).toBe(1);
    expect(
      valueAt(
        [
          [2, 0],
          [10, 1],
        ],
        1,
      ),
    ).toBeUndefined();
    const samples = [s('a', 0, 0), s('a', 10, 1), s('c', 5, 1)];
    const g = groupChart(compareCharts(runs, samples)[0]!.charts[0]!, groupRuns(runs, 'learningRate'));
    // at step 5: a is 0.5 (between its 0 and 10), c is 1
    expect(g.points.find((p) => p.x === 5)!['group:0.001']).toBeCloseTo(0.75);
  });

  it('keeps the section layout and drops charts no group has', () => {
    const sections = groupedSections(compareCharts(runs, [s('a', 1, 0.5), s('b', 1, 0.1, 'kl')]), groupRuns(runs, 'seed'));
    expect(sections.flatMap((x) => x.charts.map((c) => [c.name, c.series.length]))).toEqual([
      ['reward_mean', 1],
      ['kl', 1],
    ]);
  });
});
