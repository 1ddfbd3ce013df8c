import { defaultRunConfig, type RunConfig } from '@/core/run-config';
import { gae, groupAdvantages, tokenKl, whiten } from '@/lib/policy/advantages';
import type { TrainSequence } from '@/lib/policy/batch';
import type { LossConfigInput } from '@/lib/policy/losses';

// What the run's learner options mean for one iteration's batch and loss (docs/rl.md,
// "Learner options"): advantages, KL in the reward or the loss, aggregation, dual clip.

/**
 * A stored run config with the current defaults under it: configs are stored as created,
 * so a run from before an option existed reads that option's default (today's behaviour).
 */
export const withLearnerDefaults = (c: RunConfig): RunConfig => ({ ...defaultRunConfig, ...c });

/** GAE settings of PPO episodes (not run options). */
export const PPO_GAE = { gamma: 1, lambda: 0.95 } as const;

/** The loss the run asks for. `normTokens` is the per-turn token budget ('token-sum-norm' divides by it). */
export function lossConfigFor(c: RunConfig, o: { normTokens: number }): LossConfigInput {
  const common = {
    clipLow: c.clipLow,
    clipHigh: c.clipHigh,
    clipRatioC: c.clipRatioC,
    // KL in the reward is already in the advantages; the graph then only reports it.
    klCoef: c.klIn === 'loss' ? c.klCoef : 0,
    klEstimator: c.klEstimator,
    entropyCoef: c.entropyCoef,
    aggregation: c.lossAggregation,
    normTokens: o.normTokens,
    temperature: c.temperature,
  };
  return c.algorithm === 'ppo' ? { kind: 'ppo', ...common, valueClip: c.valueClip, valueCoef: c.valueCoef } : { kind: 'grpo', ...common };
}

/** One turn as stored: prompt + response tokens, loss mask (1 on the policy's tokens), sampling logprobs. */
export type TurnSeq = { episodeId: string; tokens: number[]; lossMask: number[]; oldLogprobs: number[] };
/** A scored episode that trains: its reward and task group. */
export type EpisodeReward = { id: string; reward: number; group: number };

/** Whether the reference policy's logprobs are needed (KL in the loss, or in the reward). */
export const needsReference = (c: RunConfig) => c.klCoef > 0;
const klInReward = (c: RunConfig) => c.klCoef > 0 && c.klIn === 'reward';

/** klCoef × Σ over a turn's policy tokens of the per-token KL of the sampling policy to the reference. */
function turnKlPenalty(c: RunConfig, q: TurnSeq, ref: number[]): number[] {
  const kl = tokenKl(q.oldLogprobs, ref, c.klEstimator);
  return kl.map((k, t) => (q.lossMask[t] ? c.klCoef * k : 0));
}

/**
 * GRPO: each episode's group-relative advantage from its reward (minus its KL penalty
 * when the KL goes into the reward), std-scaled unless Dr. GRPO, negative ones weighted
 * by negativeAdvantageWeight. Groups without signal get 0.
 */
export function grpoAdvantages(c: RunConfig, episodes: EpisodeReward[], penalty: Map<string, number> = new Map()): Map<string, number> {
  const rewards = episodes.map((e) => e.reward - (penalty.get(e.id) ?? 0));
  const adv = groupAdvantages(
    rewards,
    episodes.map((e) => e.group),
    { scaleByStd: c.scaleAdvantagesByStd },
  );
  return new Map(episodes.map((e, i) => [e.id, adv[i]! < 0 ? adv[i]! * c.negativeAdvantageWeight : adv[i]!]));
}

/**
 * The turns worth scoring against the reference and value head: with GRPO and no KL in
 * the reward, turns of zero-advantage episodes carry no gradient and are dropped first.
 */
export function turnsToScore(c: RunConfig, episodes: EpisodeReward[], turns: TurnSeq[]): TurnSeq[] {
  if (c.algorithm !== 'grpo' || klInReward(c)) return turns;
  const adv = grpoAdvantages(c, episodes);
  return turns.filter((q) => Math.abs(adv.get(q.episodeId) ?? 0) > 1e-9);
}

export type LearnerBatch = {
  sequences: TrainSequence[];
  /** Mean over the scored turns of the KL penalty taken out of the reward (0 when the KL is not in the reward). */
  klRewardPenalty: number;
};

/**
 * The iteration's training sequences. `refLogprobs[i]` / `values[i]` belong to `turns[i]`
 * (reference logprobs at the run's temperature; value-head estimates for PPO).
 */
export function buildLearnerBatch(
  c: RunConfig,
  input: { episodes: EpisodeReward[]; turns: TurnSeq[]; refLogprobs?: number[][]; values?: number[][] },
): LearnerBatch {
  const { episodes, turns } = input;
  if (needsReference(c) && input.refLogprobs?.length !== turns.length) throw new Error('klCoef > 0 needs reference logprobs for every turn');
  const ref = input.refLogprobs;
  const penalties = klInReward(c) ? turns.map((q, i) => turnKlPenalty(c, q, ref![i]!)) : undefined;
  const klRewardPenalty = penalties?.length ? penalties.reduce((a, p) => a + p.reduce((x, y) => x + y, 0), 0) / penalties.length : 0;
  const base = (q: TurnSeq, i: number) => ({ tokens: q.tokens, lossMask: q.lossMask, oldLogprobs: q.oldLogprobs, ...(ref ? { refLogprobs: ref[i]! } : {}) });
  if (c.algorithm === 'grpo') {
    const perEpisode = new Map<string, number>();
    penalties?.forEach((p, i) => perEpisode.set(turns[i]!.episodeId, (perEpisode.get(turns[i]!.episodeId) ?? 0) + p.reduce((x, y) => x + y, 0)));
    const adv = grpoAdvantages(c, episodes, perEpisode);
    const sequences = turns.map((q, i) => ({ ...base(q, i), advantages: adv.get(q.episodeId) ?? 0 })).filter((s) => Math.abs(s.advantages) > 1e-9);
    return { sequences, klRewardPenalty };
  }
  if (input.values?.length !== turns.length) throw new Error('ppo needs value estimates for every turn');
  const rewardOf = new Map(episodes.map((e) => [e.id, e.reward]));
  // The episode's reward on each turn's last token, the KL penalty (if any) on every policy token.
  const estimates = turns.map((q, i) => {
    const rew = q.tokens.map((_, t) => -(penalties?.[i]![t] ?? 0));
    rew[rew.length - 1]! += rewardOf.get(q.episodeId)!;
    return gae(rew, input.values![i]!, q.lossMask, PPO_GAE);
  });
  const advantages = c.whitenAdvantages
    ? whiten(
        estimates.map((e) => e.advantages),
        turns.map((q) => q.lossMask),
      )
    : estimates.map((e) => e.advantages);
  const sequences = turns.map((q, i) => ({ ...base(q, i), advantages: advantages[i]!, returns: estimates[i]!.returns, oldValues: input.values![i]! }));
  return { sequences, klRewardPenalty };
}
