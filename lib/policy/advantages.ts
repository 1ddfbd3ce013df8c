import { KL_CLAMP, LOG_RATIO_CLAMP } from './losses';

/**
 * Advantage estimators, computed on rollout data before a training step (they need no
 * gradients, so they live outside the graph).
 */

/**
 * Groups whose reward std is below this carry no learning signal: their differences are
 * noise (a timing-based efficiency score, float rounding), and dividing by a tiny std would
 * blow a 1e-4 difference up into full-size ±1 advantages. Such groups get zero advantages.
 */
export const MIN_GROUP_STD = 1e-3;

const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
// Population std, as in the GRPO paper's reference code.
const popStd = (a: number[]) => {
  const m = mean(a);
  return Math.sqrt(a.reduce((x, r) => x + (r - m) ** 2, 0) / a.length);
};

/** Whether a group's rewards differ enough to learn from (see MIN_GROUP_STD). */
export function groupHasSignal(rewards: number[], minStd = MIN_GROUP_STD): boolean {
  return rewards.length > 1 && popStd(rewards) >= minStd;
}

/**
 * GRPO group-relative advantages: (r - mean(group)) / (std(group) + eps), or just
 * r - mean when `scaleByStd` is false (Dr. GRPO style). `groups[i]` names sample i's group.
 * Groups with std below `minStd` (default MIN_GROUP_STD) get 0.
 */
export function groupAdvantages(rewards: number[], groups: (string | number)[], o: { scaleByStd?: boolean; eps?: number; minStd?: number } = {}): number[] {
  if (rewards.length !== groups.length) throw new Error('rewards and groups must have the same length');
  const scale = o.scaleByStd ?? true;
  const eps = o.eps ?? 1e-6;
  const minStd = o.minStd ?? MIN_GROUP_STD;
  const members = new Map<string | number, number[]>();
  groups.forEach((g, i) => members.set(g, [...(members.get(g) ?? []), i]));
  const out = new Array<number>(rewards.length).fill(0);
  for (const idx of members.values()) {
    const rs = idx.map((i) => rewards[i]!);
    if (!groupHasSignal(rs, minStd)) continue;
    const m = mean(rs);
    const std = popStd(rs);
    for (const i of idx) out[i] = scale ? (rewards[i]! - m) / (std + eps) : rewards[i]! - m;
  }
  return out;
}

/**
 * Whitening over a batch: mean 0, std 1 across the entries where `mask` is 1 (PPO's
 * advantage normalisation); masked-out entries stay 0. A constant batch becomes all 0.
 */
export function whiten(values: number[][], masks: number[][], eps = 1e-8): number[][] {
  const picked: number[] = [];
  values.forEach((v, i) =>
    v.forEach((x, t) => {
      if (masks[i]![t]) picked.push(x);
    }),
  );
  if (!picked.length) return values.map((v) => v.map(() => 0));
  const m = mean(picked);
  const std = popStd(picked);
  return values.map((v, i) => v.map((x, t) => (masks[i]![t] ? (x - m) / (std + eps) : 0)));
}

/**
 * GAE(gamma, lambda) over one multi-turn episode laid out as tokens. Only tokens with
 * policyMask = 1 are decision steps; tool/environment tokens in between are skipped (a
 * reward placed on one is credited to the policy token before it). `values[i]` is the value
 * of the state before token i. Returns per-token advantages and returns (0 off-policy).
 */
export function gae(
  rewards: number[],
  values: number[],
  policyMask: number[],
  o: { gamma?: number; lambda?: number } = {},
): { advantages: number[]; returns: number[] } {
  const n = rewards.length;
  if (values.length !== n || policyMask.length !== n) throw new Error('rewards, values and policyMask must have the same length');
  const gamma = o.gamma ?? 1;
  const lambda = o.lambda ?? 1;
  const steps: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < n; i++) {
    if (policyMask[i]) {
      steps.push(i);
      r.push(rewards[i]!);
    } else if (rewards[i] && steps.length) r[r.length - 1]! += rewards[i]!;
    else if (rewards[i]) throw new Error(`reward at token ${i} comes before any policy token`);
  }
  const advantages = new Array<number>(n).fill(0);
  const returns = new Array<number>(n).fill(0);
  let next = 0;
  let nextValue = 0; // the episode ends after its last policy token
  for (let k = steps.length - 1; k >= 0; k--) {
    const i = steps[k]!;
    const delta = r[k]! + gamma * nextValue - values[i]!;
    next = delta + gamma * lambda * next;
    advantages[i] = next;
    returns[i] = next + values[i]!;
    nextValue = values[i]!;
  }
  return { advantages, returns };
}

/**
 * Per-token KL(π || π_ref) estimates from rollout logprobs, the same estimators (and clamps)
 * as the loss's `klEstimate`, for putting the KL into the reward: with r = ref − logp
 * clamped to ±LOG_RATIO_CLAMP, k1 = −r, k2 = r²/2, k3 = min(exp(r) − r − 1, KL_CLAMP).
 */
export function tokenKl(logprobs: number[], refLogprobs: number[], estimator: 'k1' | 'k2' | 'k3'): number[] {
  if (logprobs.length !== refLogprobs.length) throw new Error('logprobs and refLogprobs must have the same length');
  return logprobs.map((lp, i) => {
    const r = Math.min(Math.max(refLogprobs[i]! - lp, -LOG_RATIO_CLAMP), LOG_RATIO_CLAMP);
    if (estimator === 'k1') return -r;
    if (estimator === 'k2') return 0.5 * r * r;
    return Math.min(Math.exp(r) - r - 1, KL_CLAMP);
  });
}
