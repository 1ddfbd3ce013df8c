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
 * An agent episode's training sequence: its turns' rows concatenated in index order (the
 * episode's one token sequence, exactly as sampled), ending at its last policy token. What
 * follows that token (the last tool messages and generation prompt, mask 0) conditions no
 * trained token, and may run past the token budget, hence past the model's context.
 */
export function wholeEpisodeSequence(turns: StoredTurn[]): { tokens: number[]; lossMask: number[]; oldLogprobs: number[] } {
  const ordered = [...turns].sort((a, b) => a.index - b.index);
  const tokens = ordered.flatMap((t) => t.tokenIds ?? []);
  const lossMask = ordered.flatMap((t) => t.lossMask ?? []);
  const oldLogprobs = ordered.flatMap((t) => t.logprobs ?? []);
  const end = lossMask.lastIndexOf(1) + 1;
  return { tokens: tokens.slice(0, end), lossMask: lossMask.slice(0, end), oldLogprobs: oldLogprobs.slice(0, end) };
}

/**
 * The sequences the learner scores: turns with a response (at least two tokens, some of
 * them the policy's), minus, with `maskTruncated`, responses cut off at the token budget
 * (overlong masking: left out of the loss, counted in `maskedOverlong`). `truncated` says
 * whether a turn's response was cut off (the shell asks the tokenizer).
 *
 * Episodes in `wholeEpisodes` (agent episodes on repository tasks) are one sequence each,
 * their turns concatenated (`wholeEpisodeSequence`); with `maskTruncated` such an episode is
 * left out when any of its messages was cut off.
 */
export function buildSequences(
  config: RunConfig,
  trainEpisodes: EpisodeReward[],
  turns: StoredTurn[],
  truncated: (t: StoredTurn) => boolean,
  wholeEpisodes: ReadonlySet<string> = new Set(),
): { sequences: TurnSeq[]; maskedOverlong: number } {
  const overlong = (t: StoredTurn) => config.maskTruncated && truncated(t);
  const perTurn = turns.filter((t) => !wholeEpisodes.has(t.episodeId));
  let maskedOverlong = perTurn.filter((t) => t.tokenIds && overlong(t)).length;
  const kept: TurnSeq[] = [];
  const seen = new Set<string>();
  // a whole episode's turns, grouped once (not re-filtered per episode)
  const byEpisode = new Map<string, typeof turns>();
  for (const t of turns) {
    if (!wholeEpisodes.has(t.episodeId) || !t.tokenIds) continue;
    const own = byEpisode.get(t.episodeId);
    if (own) own.push(t);
    else byEpisode.set(t.episodeId, [t]);
  }
  // in the order given (slot order), one entry per whole episode at its first turn
  for (const t of turns) {
    if (!wholeEpisodes.has(t.episodeId)) {
      if (t.tokenIds && t.tokenIds.length >= 2 && t.lossMask!.some((m) => m === 1) && !overlong(t))
        kept.push({ episodeId: t.episodeId, tokens: t.tokenIds, lossMask: t.lossMask!, oldLogprobs: t.logprobs! });
      continue;
    }
    if (seen.has(t.episodeId)) continue;
    seen.add(t.episodeId);
    const own = byEpisode.get(t.episodeId) ?? [];
    if (own.some(overlong)) {
      maskedOverlong++;
      continue;
    }
    const q = wholeEpisodeSequence(own);
    if (q.tokens.length >= 2) kept.push({ episodeId: t.episodeId, ...q });
  }
  return { sequences: turnsToScore(config, trainEpisodes, kept), maskedOverlong };
}
