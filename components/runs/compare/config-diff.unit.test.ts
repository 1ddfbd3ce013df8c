import { describe, expect, it } from 'vitest';
import { configDiff, flattenConfig } from './config-diff';

describe('config diff (compare page)', () => {
  it('flattens nested settings to dotted paths; lists stay one value', () => {
    expect(flattenConfig({ lr: 0.001, review: { rate: 0.05, blind: true }, curriculum: ['a', 'b'], suite: 'humaneval' })).toEqual({
      lr: '0.001',
      'review.rate': '0.05',
      'review.blind': 'true',
      curriculum: '["a","b"]',
      suite: 'humaneval',
    });
  });

  it('keeps only the fields that differ, one value per run, absent as —', () => {
    const a = { lr: 0.001, groupSize: 8, review: { rate: 0.05 } };
    const b = { lr: 0.0003, groupSize: 8, review: { rate: 0.1 }, seed: 7 };
    expect(configDiff([a, b])).toEqual([
      { path: 'lr', values: ['0.001', '0.0003'] },
      { path: 'review.rate', values: ['0.05', '0.1'] },
      { path: 'seed', values: ['—', '7'] },
    ]);
    expect(configDiff([a, a])).toEqual([]);
  });
});
