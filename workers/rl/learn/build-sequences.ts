import type { RunConfig } from '@/core/run-config';
import { turnsToScore, type EpisodeReward, type TurnSeq } from '../learner-batch';

/** A stored turn as the learner reads it. */
export type StoredTurn = { episodeId: string; index: number; tokenIds: number[] | null; lossMask: number[] | null; logprobs: number[] | null };

/**
 * Turns in slot order (the order of `episodeIds`: group, sample), then by turn index; not by
 * episode id: ids are random uuids, and the batch order decides the minibatches, so a fixed
 * seed would not replay the training otherwise.
 */
export function inSlotOrder<T extends { episodeId: string; index: number }>(turns: T[], episodeIds: string[]): T[] {
  const slotOf = new Map(episodeIds.map((id, i) => [id, i]));
  return [...turns].sort((a, b) => slotOf.get(a.episodeId)! - slotOf.get(b.episodeId)! || a.index - b.index);
}

/** The policy's own tokens of a turn (where the loss mask is 1). */
export const generatedTokens = (t: StoredTurn): number[] => t.tokenIds!.filter((_, i) => t.lossMask![i] === 1);

/**
 * The sequences the learner scores: turns with a response (at least two tokens, some of
 * them the policy's), minus, with `maskTruncated`, responses cut off at the token budget
 * (overlong masking: left out of the loss, counted in `maskedOverlong`). `truncated` says
 * whether a turn's response was cut off (the shell asks the tokenizer).
 */
export function buildSequences(
  config: RunConfig,
  trainEpisodes: EpisodeReward[],
  turns: StoredTurn[],
  truncated: (t: StoredTurn) => boolean,
): { sequences: TurnSeq[]; maskedOverlong: number } {
  const overlong = (t: StoredTurn) => config.maskTruncated && truncated(t);
  const maskedOverlong = turns.filter((t) => t.tokenIds && overlong(t)).length;
  const kept: TurnSeq[] = turns
    .filter((t) => t.tokenIds && t.tokenIds.length >= 2 && t.lossMask!.some((m) => m === 1) && !overlong(t))
    .map((t) => ({ episodeId: t.episodeId, tokens: t.tokenIds!, lossMask: t.lossMask!, oldLogprobs: t.logprobs! }));
  return { sequences: turnsToScore(config, trainEpisodes, kept), maskedOverlong };
}
