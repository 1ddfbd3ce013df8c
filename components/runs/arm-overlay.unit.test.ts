import { describe, expect, it } from 'vitest';
import { overlayArm } from './arm-overlay';
import { runCharts, type MetricSampleView } from './metric-groups';

const m = (name: string, step: number, value: number): MetricSampleView => ({ name, step, value, at: '2026-01-01T00:00:00Z' });

describe('control arm overlay on the run page', () => {
  it('draws the other arm on the reward and pass-rate charts only, step by step, with a legend', () => {
    const self = [m('reward_mean', 1, 0.3), m('reward_mean', 2, 0.5), m('heldout_pass_at_1', 0, 0.2), m('heldout_pass_at_1', 2, 0.4), m('kl', 1, 0.01)];
    const control = [
      m('reward_mean', 1, 0.3),
      m('reward_mean', 2, 0.31),
      m('reward_mean', 3, 0.29),
      m('heldout_pass_at_1', 0, 0.2),
      m('heldout_pass_at_1', 2, 0.2),
      m('kl', 1, 0),
    ];
    const sections = overlayArm(runCharts(self), control, { self: 'RL', other: 'control (lr 0)' });
    const chart = (name: string) => sections.flatMap((s) => s.charts).find((c) => c.name === name)!;
    const reward = chart('reward_mean');
    expect(reward.legend).toBe(true);
    expect(reward.series.map((s) => [s.key, s.label])).toEqual([
      ['value', 'RL'],
      ['arm', 'control (lr 0)'],
    ]);
    // a step only the control has reached still shows, as its own point
    expect(reward.points.map((p) => [p.x, p.value, p.arm])).toEqual([
      [1, 0.3, 0.3],
      [2, 0.5, 0.31],
      [3, undefined, 0.29],
    ]);
    expect(chart('heldout_pass_at_1').points.map((p) => [p.x, p.value, p.arm])).toEqual([
      [0, 0.2, 0.2],
      [2, 0.4, 0.2],
    ]);
    // learner metrics stay the run's own
    expect(chart('kl').series.map((s) => s.key)).toEqual(['value']);
  });
});
