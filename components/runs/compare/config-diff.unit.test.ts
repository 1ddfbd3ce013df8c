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

describe('settings that apply to none of the compared runs', () => {
  it('repository-only settings are left out when skipped; the rest stay', async () => {
    const { isRepoOnlyPath } = await import('../run-form-fields');
    for (const p of [
      'tools',
      'agentTokenBudget',
      'agentSystemPrompt',
      'repoReward',
      'repoRewardWeights.f2p',
      'chatTemplateArgs.enable_thinking',
      'toolCallFormat',
    ])
      expect(isRepoOnlyPath(p), p).toBe(true);
    for (const p of ['rewardWeights.style', 'maxTurns', 'learningRate', 'heldout.tasks']) expect(isRepoOnlyPath(p), p).toBe(false);
    const a = { learningRate: 1e-3, repoReward: 'fraction', agentTokenBudget: 4096 };
    const b = { learningRate: 3e-4, repoReward: 'resolved', agentTokenBudget: 8192 };
    expect(configDiff([a, b]).map((r) => r.path)).toEqual(['agentTokenBudget', 'learningRate', 'repoReward']);
    expect(configDiff([a, b], isRepoOnlyPath).map((r) => r.path)).toEqual(['learningRate']);
  });
});
