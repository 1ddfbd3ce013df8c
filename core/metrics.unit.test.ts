import { describe, expect, it } from 'vitest';
import { RL_ITERATION_METRICS, RL_METRIC_SECTIONS, RL_METRICS, RL_REWARD_SPREAD } from './metrics';

describe('RL metric contract', () => {
  it('gives every RL metric exactly one place on the charts', () => {
    // A metric the learner writes but no section names would land in "Other"; one named
    // twice would be drawn twice.
    const placed = [...RL_METRIC_SECTIONS.flatMap((s) => s.metrics), ...RL_REWARD_SPREAD];
    expect([...placed].sort()).toEqual([...RL_METRICS].sort());
  });

  it('lists each metric once', () => {
    expect(new Set(RL_METRICS).size).toBe(RL_METRICS.length);
    expect(RL_ITERATION_METRICS.every((m) => (RL_METRICS as readonly string[]).includes(m))).toBe(true);
  });
});
