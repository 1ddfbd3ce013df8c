import { describe, expect, it } from 'vitest';
import { defaultRunConfig } from '@/core/run-config';
import { buildSequences, generatedTokens, inSlotOrder, wholeEpisodeSequence, type StoredTurn } from './build-sequences';

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

  it('an agent episode (wholeEpisodes) is one sequence: its turns concatenated in index order, up to its last policy token', () => {
    // episode a: turn 0 = prompt (0) + message (1) + tool output (0); turn 1 = message (1) + trailing tool output (0)
    const a0 = { episodeId: 'a', index: 0, tokenIds: [10, 11, 12, 13, 14], lossMask: [0, 1, 1, 0, 0], logprobs: [0, -0.5, -0.6, 0, 0] };
    const a1 = { episodeId: 'a', index: 1, tokenIds: [15, 16, 17], lossMask: [1, 0, 0], logprobs: [-0.7, 0, 0] };
    const d0 = turn('d', 0, [1, 4]);
    const { sequences } = buildSequences(config(), episodes, [a1, a0, d0], () => false, new Set(['a']));
    expect(sequences).toEqual([
      { episodeId: 'a', tokens: [10, 11, 12, 13, 14, 15], lossMask: [0, 1, 1, 0, 0, 1], oldLogprobs: [0, -0.5, -0.6, 0, 0, -0.7] },
      { episodeId: 'd', tokens: [1, 4], lossMask: [0, 1], oldLogprobs: [-1, -1] },
    ]);
    expect(wholeEpisodeSequence([a0, a1]).tokens).toEqual([10, 11, 12, 13, 14, 15]);
    // with maskTruncated, one cut-off message leaves the whole episode out (counted once)
    const cut = buildSequences(config({ maskTruncated: true }), episodes, [a0, a1, d0], (t) => t.episodeId === 'a' && t.index === 1, new Set(['a']));
    expect(cut.sequences.map((q) => q.episodeId)).toEqual(['d']);
    expect(cut.maskedOverlong).toBe(1);
  });

  it('inSlotOrder orders turns by the episodes’ slot order, then turn index, not by id', () => {
    const sorted = inSlotOrder([turn('z', 1, [1]), turn('a', 0, [1]), turn('z', 0, [1]), turn('a', 1, [1])], ['z', 'a']);
    expect(sorted.map((t) => `${t.episodeId}${t.index}`)).toEqual(['z0', 'z1', 'a0', 'a1']);
  });
});
