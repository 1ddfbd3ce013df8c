import { describe, expect, it } from 'vitest';
import { rewardBreakdown } from './reward-breakdown';

describe('reward breakdown on the review card', () => {
  it('weights each component as the scorer does, and the sum is the reward', () => {
    const b = rewardBreakdown({ passRate: 1, style: 0.5, efficiency: 0.75, testsPassed: 3 }, { passRate: 1, style: 0.1, efficiency: 0.1 }, null)!;
    expect(b.rows.map((r) => [r.name, r.weight])).toEqual([
      ['passRate', 1],
      ['style', 0.1],
      ['efficiency', 0.1],
    ]);
    // (1·1 + 0.1·0.5 + 0.1·0.75) / 1.2
    expect(b.sum).toBeCloseTo(1.125 / 1.2);
  });

  it('a repository task: tests for passRate; resolved when the run rewards that; null without the parts', () => {
    expect(rewardBreakdown({ tests: 0.5, style: 1, efficiency: 1, resolved: 0 }, { passRate: 1, style: 0, efficiency: 0 }, 'fraction')!.sum).toBeCloseTo(0.5);
    expect(rewardBreakdown({ tests: 0.5, style: 1, efficiency: 1, resolved: 1 }, { passRate: 1, style: 0, efficiency: 0 }, 'resolved')).toEqual({
      rows: [{ name: 'resolved', value: 1, weight: 1, contribution: 1 }],
      sum: 1,
    });
    expect(rewardBreakdown({ f2p: 1 }, { passRate: 1, style: 0, efficiency: 0 }, null)).toBeNull();
    expect(rewardBreakdown({ passRate: 1, style: 1, efficiency: 1 }, null, null)).toBeNull(); // blind: weights withheld
  });
});
