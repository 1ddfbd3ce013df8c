import { describe, expect, it } from 'vitest';
import { defaultRunConfig } from '@/core/run-config';
import { buildSequences, generatedTokens, inSlotOrder, type StoredTurn } from './build-sequences';

// Two groups with signal (rewards differ inside each), so GRPO keeps every episode's turns.
const episodes = [
  { id: 'a', reward: 1, group: 0 },
  { id: 'b', reward: 0, group: 0 },
  { id: 'c', reward: 1, group: 1 },
  { id: 'd', reward: 0, group: 1 },
];
const turn = (
  episodeId: string,
  index: number,
  tokenIds: number[] | null,
  lossMask: number[] | null = tokenIds?.map((_, i) => (i ? 1 : 0)) ?? null,
): StoredTurn => ({
  episodeId,
  index,
  tokenIds,
  lossMask,
  logprobs: tokenIds?.map(() => -1) ?? null,
});
const config = (c: Partial<typeof defaultRunConfig> = {}) => ({ ...defaultRunConfig, klCoef: 0, ...c });
// "truncated" here: the response ends in token 9 (the shell asks the tokenizer instead)
const endsIn9 = (t: StoredTurn) => generatedTokens(t).at(-1) === 9;

describe('buildSequences: the turns the learner scores', () => {
  const turns = [turn('a', 0, [1, 2, 3]), turn('b', 0, [1, 2, 9]), turn('c', 0, [1, 9]), turn('d', 0, [1, 4])];

  it('without maskTruncated every turn with a response trains, truncated or not', () => {
    const { sequences, maskedOverlong } = buildSequences(config({ maskTruncated: false }), episodes, turns, endsIn9);
    expect(sequences.map((q) => q.episodeId)).toEqual(['a', 'b', 'c', 'd']);
    expect(maskedOverlong).toBe(0);
  });

  it('maskTruncated leaves responses cut off at the budget out of the batch and counts them', () => {
    const { sequences, maskedOverlong } = buildSequences(config({ maskTruncated: true }), episodes, turns, endsIn9);
    expect(sequences.map((q) => q.episodeId)).toEqual(['a', 'd']);
    expect(maskedOverlong).toBe(2);
    expect(sequences[0]).toEqual({ episodeId: 'a', tokens: [1, 2, 3], lossMask: [0, 1, 1], oldLogprobs: [-1, -1, -1] });
  });

  it('drops turns without a response: no tokens, fewer than two, or none of them the policy’s', () => {
    const { sequences } = buildSequences(
      config(),
      episodes,
      [turn('a', 0, null), turn('b', 0, [1]), turn('c', 0, [1, 2], [0, 0]), turn('d', 0, [1, 2])],
      endsIn9,
    );
    expect(sequences.map((q) => q.episodeId)).toEqual(['d']);
  });

  it('GRPO without KL in the reward drops turns of zero-advantage episodes (a group without signal)', () => {
    const flat = [
      { id: 'a', reward: 1, group: 0 },
      { id: 'b', reward: 1, group: 0 },
      { id: 'c', reward: 1, group: 1 },
      { id: 'd', reward: 0, group: 1 },
    ];
    const { sequences } = buildSequences(config(), flat, turns, () => false);
    expect(sequences.map((q) => q.episodeId)).toEqual(['c', 'd']);
  });

  it('inSlotOrder orders turns by the episodes’ slot order, then turn index, not by id', () => {
    const sorted = inSlotOrder([turn('z', 1, [1]), turn('a', 0, [1]), turn('z', 0, [1]), turn('a', 1, [1])], ['z', 'a']);
    expect(sorted.map((t) => `${t.episodeId}${t.index}`)).toEqual(['z0', 'z1', 'a0', 'a1']);
  });
});
