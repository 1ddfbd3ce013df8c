import { describe, expect, it } from 'vitest';
import { niceTicks } from './series-chart';

describe('resource chart ticks', () => {
  it('are round and reach the top (a 23.5 GB capacity line), whole for counts', () => {
    expect(niceTicks(23.5)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(niceTicks(1, true)).toEqual([0, 1]);
    expect(niceTicks(3, true)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0.42)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(120)).toEqual([0, 50, 100, 150]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
