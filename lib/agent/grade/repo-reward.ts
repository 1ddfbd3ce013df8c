import type { RepoTestResult } from '@/core/repo-tasks';

/**
 * Reward of a repository task from its test results: the weighted pass fractions of
 * FAIL_TO_PASS and PASS_TO_PASS, and (with `p2pGate`, the default, as SWE-bench) zero when any
 * PASS_TO_PASS test fails. Defaults: weights f2p 1, p2p 0 — the fraction of FAIL_TO_PASS.
 */
export type RepoRewardWeights = { f2p: number; p2p: number; p2pGate: boolean };
export const DEFAULT_REPO_REWARD_WEIGHTS: RepoRewardWeights = { f2p: 1, p2p: 0, p2pGate: true };

export function repoReward(
  f2p: RepoTestResult[],
  p2p: RepoTestResult[],
  weights: Partial<RepoRewardWeights> = {},
): { reward: number; components: Record<string, number> } {
  const w = { ...DEFAULT_REPO_REWARD_WEIGHTS, ...weights };
  const frac = (t: RepoTestResult[]) => (t.length === 0 ? 1 : t.filter((x) => x.passed).length / t.length);
  const f = frac(f2p);
  const p = frac(p2p);
  const p2pAll = p2p.every((x) => x.passed) ? 1 : 0;
  const total = w.f2p + w.p2p;
  const weighted = total > 0 ? (w.f2p * f + w.p2p * p) / total : 0;
  const reward = w.p2pGate && !p2pAll ? 0 : weighted;
  return { reward, components: { f2p: f, p2p: p, p2p_all: p2pAll } };
}
