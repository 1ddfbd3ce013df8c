/**
 * Advantage estimators, computed on rollout data before a training step (they need no
 * gradients, so they live outside the graph).
 */

/**
 * GRPO group-relative advantages: (r - mean(group)) / (std(group) + eps), or just
 * r - mean when `scaleByStd` is false (Dr. GRPO style). `groups[i]` names sample i's group.
 */
export function groupAdvantages(rewards: number[], groups: (string | number)[], o: { scaleByStd?: boolean; eps?: number } = {}): number[] {
  if (rewards.length !== groups.length) throw new Error('rewards and groups must have the same length');
  const scale = o.scaleByStd ?? true;
  const eps = o.eps ?? 1e-6;
  const members = new Map<string | number, number[]>();
  groups.forEach((g, i) => members.set(g, [...(members.get(g) ?? []), i]));
  const out = new Array<number>(rewards.length).fill(0);
  for (const idx of members.values()) {
    const rs = idx.map((i) => rewards[i]!);
    const mean = rs.reduce((a, b) => a + b, 0) / rs.length;
    // Population std, as in the GRPO paper's reference code.
    const std = Math.sqrt(rs.reduce((a, r) => a + (r - mean) ** 2, 0) / rs.length);
    for (const i of idx) out[i] = scale ? (rewards[i]! - mean) / (std + eps) : rewards[i]! - mean;
  }
  return out;
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
