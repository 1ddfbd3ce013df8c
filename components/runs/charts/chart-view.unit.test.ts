import { describe, expect, it } from 'vitest';
import { compareCharts, runCharts, type MetricSampleView } from '../metric-groups';
import { availableXModes, chartView, tokensLookup, type ChartControls } from './chart-view';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const m = (name: string, step: number, value: number, extra: Partial<MetricSampleView> = {}): MetricSampleView => ({
  name,
  step,
  value,
  at: new Date(t0 + step * 60_000).toISOString(),
  ...extra,
});
const palette = ['#111111', '#222222'];
const raw: ChartControls = { smoothing: 0, logY: false, x: 'iteration' };
const none = new Set<string>();

const rewardChart = () =>
  runCharts(
    [0, 1, 2, 3].flatMap((s) => [m('reward_mean', s, [0.1, 0.2, 0.9, 0.3][s]!), m('reward_std', s, 0.3), m('reward_min', s, 0), m('reward_max', s, 1)]),
  )[0]!.charts[0]!;

describe('chart view (what a panel draws under the controls)', () => {
  it('raw: one line per series, linear axes, the band kept', () => {
    const v = chartView(rewardChart(), raw, none, {}, palette);
    expect(v.lines.map((l) => [l.key, !!l.faint, !!l.dashed])).toEqual([
      ['value', false, false],
      ['min', false, true],
      ['max', false, true],
    ]);
    expect(v.band).toBe(true);
    expect(v.x.ticks).toEqual([0, 1, 2, 3]);
    expect(v.y.domain).toEqual([0, 1]);
    // the band never leaves the rewards' range
    for (const r of v.rows) expect((r.band as number[])[0]).toBeGreaterThanOrEqual(0);
  });

  it('smoothing draws the EMA over a faint raw line; the spike stays at its step', () => {
    const v = chartView(rewardChart(), { ...raw, smoothing: 0.6 }, none, {}, palette);
    expect(v.lines.filter((l) => l.key.startsWith('value')).map((l) => [l.key, !!l.faint])).toEqual([
      ['value', true],
      ['value__ema', false],
    ]);
    const smooth = v.rows.map((r) => r.value__ema as number);
    expect(smooth[1]).toBeLessThan(smooth[2]!); // rises at the spike, not before
    expect(smooth[2]).toBeLessThan(0.9); // and is damped
    expect(v.rows.map((r) => r.value)).toEqual([0.1, 0.2, 0.9, 0.3]); // raw untouched
  });

  it('hiding the main series hides its band and min/max too', () => {
    const v = chartView(rewardChart(), raw, new Set(['value']), {}, palette);
    expect(v.lines).toEqual([]);
    expect(v.band).toBe(false);
  });

  it('log y leaves out values ≤ 0 and says how many', () => {
    const kl = runCharts([m('kl', 0, 0), m('kl', 1, 0.001), m('kl', 2, 0.1)])[0]!.charts[0]!;
    const v = chartView(kl, { ...raw, logY: true }, none, {}, palette);
    expect(v.rows.map((r) => r.value)).toEqual([undefined, 0.001, 0.1]);
    expect(v.hiddenByLog).toBe(1);
    expect(v.y.ticks).toEqual([0.001, 0.01, 0.1]);
  });

  it('x by time since the run started, and by episodes (step × episodes per iteration)', () => {
    const chart = rewardChart();
    const byTime = chartView(chart, { ...raw, x: 'time' }, none, { startMs: () => t0 }, palette);
    expect(byTime.rows.map((r) => r.x)).toEqual([0, 60, 120, 180]);
    expect(byTime.x.format(120)).toBe('2m');
    const byEpisodes = chartView(chart, { ...raw, x: 'episodes' }, none, { episodesPerStep: () => 64 }, palette);
    expect(byEpisodes.rows.map((r) => r.x)).toEqual([0, 64, 128, 192]);
    expect(byEpisodes.rows[2]!.band).toEqual(chart.points[2]!.band);
  });

  it('x by generated tokens: each step at the run’s tokens so far; steps before the first count at 0', () => {
    const chart = rewardChart();
    const tokens = tokensLookup([
      [1, 500],
      [2, 1_200],
      [3, 2_000],
    ]);
    const v = chartView(chart, { ...raw, x: 'tokens' }, none, { tokensAtStep: (_k, step) => tokens?.(step) }, palette);
    expect(v.rows.map((r) => r.x)).toEqual([0, 500, 1_200, 2_000]);
    expect(v.xLabel).toBe('generated tokens');
    expect(tokensLookup([])).toBeUndefined();
    expect(tokens?.(10)).toBe(2_000);
  });

  it('compare: each run on its own clock', () => {
    const runs = [
      { id: 'a', name: 'a' },
      { id: 'b', name: 'b' },
    ];
    const chart = compareCharts(runs, [m('kl', 1, 0.1, { runId: 'a' }), m('kl', 1, 0.2, { runId: 'b', at: new Date(t0 + 3_600_000).toISOString() })])[0]!
      .charts[0]!;
    const v = chartView(chart, { ...raw, x: 'time' }, none, { startMs: (k) => (k === 'a' ? t0 : t0 + 3_540_000) }, palette);
    expect(v.rows).toEqual([{ x: 60, a: 0.1, b: 0.2 }]);
  });

  it('offers time when samples have times and episodes when the per-iteration count is known', () => {
    const charts = [rewardChart()];
    expect(availableXModes(charts, {})).toEqual(['iteration', 'time']);
    expect(availableXModes(charts, { episodesPerStep: () => 8 })).toEqual(['iteration', 'time', 'episodes']);
    expect(availableXModes(charts, { episodesPerStep: () => 8, tokensAtStep: () => undefined })).toEqual(['iteration', 'time', 'episodes']);
    expect(availableXModes(charts, { tokensAtStep: () => 10 })).toEqual(['iteration', 'time', 'tokens']);
  });
});
