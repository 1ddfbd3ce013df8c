import { describe, expect, it } from 'vitest';
import { gae, groupAdvantages, MIN_GROUP_STD, whiten } from './advantages';

describe('group-relative advantages', () => {
  it('normalises within each group', () => {
    const a = groupAdvantages([1, 0, 0, 1, 5, 5, 5, 9], ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b']);
    expect(a.slice(0, 4).map((x) => +x.toFixed(4))).toEqual([1, -1, -1, 1]);
    expect(a[7]).toBeCloseTo(Math.sqrt(3), 4); // (9 - 6) / sqrt(3)
    expect(a[4]).toBeCloseTo(-1 / Math.sqrt(3), 4);
  });
  it('skips std scaling when asked, and gives 0 for constant groups', () => {
    expect(groupAdvantages([1, 3], [0, 0], { scaleByStd: false })).toEqual([-1, 1]);
    expect(groupAdvantages([2, 2, 2], [1, 1, 1])).toEqual([0, 0, 0]);
  });
  it('gives zero advantages to a group whose reward std is below MIN_GROUP_STD, instead of blowing noise up to ±1', () => {
    // an all-pass group whose rewards differ by 1e-4 (e.g. timing noise in the efficiency term)
    const noise = [1, 1, 1, 1.0001];
    expect(groupAdvantages(noise, [0, 0, 0, 0])).toEqual([0, 0, 0, 0]);
    expect(groupAdvantages(noise, [0, 0, 0, 0], { scaleByStd: false })).toEqual([0, 0, 0, 0]);
    // just above the floor the group is normalised as usual
    const d = 2.2 * MIN_GROUP_STD; // population std of [x, x + d] is d / 2
    const a = groupAdvantages([0.5, 0.5 + d], [0, 0]);
    expect(a.map((x) => +x.toFixed(2))).toEqual([-1, 1]);
    // the floor is per group: a real difference next to the noise still counts
    expect(groupAdvantages([...noise, 0, 1], [0, 0, 0, 0, 1, 1]).map((x) => +x.toFixed(4))).toEqual([0, 0, 0, 0, -1, 1]);
  });
  it('whitens over masked entries only', () => {
    const w = whiten(
      [
        [5, 1, 3],
        [9, 2],
      ],
      [
        [0, 1, 1],
        [0, 1],
      ],
    );
    expect(w.map((r) => r.map((x) => +x.toFixed(4)))).toEqual([
      [0, -1.2247, 1.2247],
      [0, 0],
    ]);
  });
});

describe('GAE over a multi-turn episode', () => {
  it('matches a hand computation and skips environment tokens', () => {
    // tokens: p p e e p  (p = policy, e = tool output); reward 1 on the tool output credited to token 1.
    const rewards = [0, 0, 1, 0, 2];
    const values = [0.5, 0.4, 9, 9, 0.3];
    const mask = [1, 1, 0, 0, 1];
    const gamma = 0.9;
    const lambda = 0.8;
    const { advantages, returns } = gae(rewards, values, mask, { gamma, lambda });
    const d4 = 2 - 0.3;
    const d1 = 1 + gamma * 0.3 - 0.4;
    const d0 = 0 + gamma * 0.4 - 0.5;
    const a4 = d4;
    const a1 = d1 + gamma * lambda * a4;
    const a0 = d0 + gamma * lambda * a1;
    expect(advantages[4]).toBeCloseTo(a4, 10);
    expect(advantages[1]).toBeCloseTo(a1, 10);
    expect(advantages[0]).toBeCloseTo(a0, 10);
    expect(advantages[2]).toBe(0);
    expect(returns[0]).toBeCloseTo(a0 + 0.5, 10);
  });
  it('with gamma = lambda = 1 gives reward-to-go minus value', () => {
    const { advantages } = gae([0, 0, 1], [0.1, 0.2, 0.3], [1, 1, 1]);
    expect(advantages.map((x) => +x.toFixed(6))).toEqual([0.9, 0.8, 0.7]);
  });
});
