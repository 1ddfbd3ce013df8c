import { describe, expect, it } from 'vitest';
import { compareCharts, runCharts, type MetricSampleView } from './metric-groups';

const at = '2026-01-01T00:00:00Z';
const m = (name: string, step: number | null, value: number, extra: Partial<MetricSampleView> = {}): MetricSampleView => ({ name, step, value, at, ...extra });

describe('runCharts', () => {
  it('puts reward and pass@1 first, then update, time, health, components, and the rest under Other', () => {
    const samples = [
      m('efficiency', 1, 0.5),
      m('custom_thing', 1, 1),
      m('kl', 1, 0.01),
      m('infra_failed_rate', 1, 0),
      m('heldout_pass_at_1', 0, 0.1),
      m('reward_mean', 1, 0.3),
      m('episode_time_ms', 1, 900),
      m('entropy', 1, 2),
    ];
    const sections = runCharts(samples);
    expect(sections.map((s) => s.title)).toEqual(['Reward and pass rate', 'Policy update', 'Lengths, turns and time', 'Health', 'Reward components', 'Other']);
    expect(sections[0]!.charts.map((c) => c.name)).toEqual(['reward_mean', 'heldout_pass_at_1']);
    expect(sections[1]!.charts.map((c) => c.name)).toEqual(['kl', 'entropy']);
    expect(sections.at(-1)!.charts.map((c) => c.name)).toEqual(['custom_thing']);
  });

  it('draws reward_min/max/std inside the reward_mean chart as a band and dashed lines, not as charts', () => {
    const samples = [1, 2].flatMap((step) => [
      m('reward_mean', step, 0.5 * step),
      m('reward_std', step, 0.1),
      m('reward_min', step, 0),
      m('reward_max', step, 1),
    ]);
    const sections = runCharts(samples);
    expect(sections.flatMap((s) => s.charts.map((c) => c.name))).toEqual(['reward_mean']);
    const chart = sections[0]!.charts[0]!;
    expect(chart.band).toBe(true);
    expect(chart.series.map((s) => [s.key, !!s.dashed])).toEqual([
      ['value', false],
      ['min', true],
      ['max', true],
    ]);
    expect(chart.points[1]).toMatchObject({ x: 2, value: 1, min: 0, max: 1 });
    // the ±1 std band is clipped to the rewards' range at that step (max 1 here)
    expect(chart.points[1]!.band).toEqual([0.9, 1]);
    expect(chart.points[0]!.band).toEqual([0.4, 0.6]);
  });

  it('draws labelled metrics as one series per label set, sorted by step', () => {
    const samples = [
      m('sandbox_failures', 2, 1, { labels: { status: 'preempted' } }),
      m('sandbox_failures', 1, 3, { labels: { status: 'sandbox_error' } }),
      m('sandbox_failures', 2, 2, { labels: { status: 'sandbox_error' } }),
    ];
    const [health] = runCharts(samples);
    const chart = health!.charts[0]!;
    expect(chart.series.map((s) => s.key)).toEqual(['status=preempted', 'status=sandbox_error']);
    expect(chart.points).toEqual([
      { x: 1, 'status=sandbox_error': 3 },
      { x: 2, 'status=preempted': 1, 'status=sandbox_error': 2 },
    ]);
  });

  it('keeps heldout_pass_at_1 one line although its samples carry a task-count label', () => {
    const samples = [m('heldout_pass_at_1', 0, 0.25, { labels: { tasks: '4' } }), m('heldout_pass_at_1', 1, 0.5)];
    const chart = runCharts(samples)[0]!.charts[0]!;
    expect(chart.series.map((s) => s.key)).toEqual(['value']);
    expect(chart.points.map((p) => p.value)).toEqual([0.25, 0.5]);
  });
});

describe('compareCharts', () => {
  const runs = [
    { id: 'a', name: 'grpo' },
    { id: 'b', name: 'ppo' },
  ];
  it('one chart per metric with one series per run, each run in its own colour on every chart', () => {
    const samples = [
      m('reward_mean', 1, 0.2, { runId: 'a' }),
      m('reward_mean', 2, 0.4, { runId: 'a' }),
      m('reward_mean', 1, 0.6, { runId: 'b' }),
      m('kl', 1, 0.01, { runId: 'b' }),
    ];
    const sections = compareCharts(runs, samples);
    const reward = sections[0]!.charts[0]!;
    expect(reward.series.map((s) => s.label)).toEqual(['grpo', 'ppo']);
    expect(reward.points).toEqual([
      { x: 1, a: 0.2, b: 0.6 },
      { x: 2, a: 0.4 },
    ]);
    const kl = sections[1]!.charts[0]!;
    expect(kl.series.map((s) => s.label)).toEqual(['ppo']);
    expect(kl.series[0]!.color).toBe(reward.series[1]!.color);
    expect(kl.legend).toBe(true);
  });

  it('sums labelled metrics per run and step so each run stays one line', () => {
    const samples = [
      m('sandbox_failures', 1, 2, { runId: 'a', labels: { status: 'sandbox_error' } }),
      m('sandbox_failures', 1, 1, { runId: 'a', labels: { status: 'preempted' } }),
    ];
    expect(compareCharts(runs, samples)[0]!.charts[0]!.points).toEqual([{ x: 1, a: 3 }]);
  });
});
