import { describe, expect, it } from 'vitest';
import { armDifference } from './arm-difference';

const s = (name: string, step: number, value: number) => ({ name, step, value, at: 0 });

describe('RL − control per iteration', () => {
  it('pairs the arms by step, with a 95% interval from both spreads and n', () => {
    const rl = [s('reward_mean', 1, 0.6), s('reward_std', 1, 0.4), s('reward_mean', 2, 0.7), s('reward_mean', 3, 0.9)];
    const control = [s('reward_mean', 1, 0.4), s('reward_std', 1, 0.3), s('reward_mean', 2, 0.5)];
    const rows = armDifference(rl, control, 8);
    expect(rows.map((r) => r.step)).toEqual([1, 2]); // step 3: the control has none
    expect(rows[0]!.diff).toBeCloseTo(0.2);
    // 1.96 · sqrt(0.16/8 + 0.09/8) = 1.96 · 0.1768 = 0.3465: 0.2 is inside, noise at n = 8
    expect(rows[0]!.halfWidth).toBeCloseTo(0.3465, 3);
    expect(rows[1]!.halfWidth).toBeNull(); // no spread reported
  });
});
