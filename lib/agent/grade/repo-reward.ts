import type { RepoTestResult } from '@/core/repo-tasks';

/**
 * Reward of a repository task from its test results: the weighted pass fractions of
 * FAIL_TO_PASS and PASS_TO_PASS, and (with `p2pGate`, the default, as SWE-bench) zero when any
 * PASS_TO_PASS test fails. Defaults: weights f2p 1, p2p 0 — the fraction of FAIL_TO_PASS.
 * The `resolved` component is SWE-bench's binary definition: every FAIL_TO_PASS and every
 * PASS_TO_PASS test passes (a run with `repoReward: 'resolved'` is rewarded with it).
 *
 * A test listed together with tests nested in it (node:test's `suite` and `suite > case`)
 * counts through its nested tests only: the suite passes exactly when they all do, so
 * counting it too would weigh that suite twice.
 */
export type RepoRewardWeights = { f2p: number; p2p: number; p2pGate: boolean };
export const DEFAULT_REPO_REWARD_WEIGHTS: RepoRewardWeights = { f2p: 1, p2p: 0, p2pGate: true };

export function repoReward(
  f2p: RepoTestResult[],
  p2p: RepoTestResult[],
  weights: Partial<RepoRewardWeights> = {},
): { reward: number; components: Record<string, number> } {
  const w = { ...DEFAULT_REPO_REWARD_WEIGHTS, ...weights };
  f2p = leaves(f2p);
  p2p = leaves(p2p);
  const frac = (t: RepoTestResult[]) => (t.length === 0 ? 1 : t.filter((x) => x.passed).length / t.length);
  const f = frac(f2p);
  const p = frac(p2p);
  const p2pAll = p2p.every((x) => x.passed) ? 1 : 0;
  const total = w.f2p + w.p2p;
  const weighted = total > 0 ? (w.f2p * f + w.p2p * p) / total : 0;
  const reward = w.p2pGate && !p2pAll ? 0 : weighted;
  const resolved = p2pAll && f2p.every((x) => x.passed) ? 1 : 0;
  return { reward, components: { f2p: f, p2p: p, p2p_all: p2pAll, resolved } };
}

/** The tests of a list that no other listed test is nested in (`file::suite > case` is nested in `file::suite`). */
function leaves(tests: RepoTestResult[]): RepoTestResult[] {
  return tests.filter((t) => !tests.some((u) => u !== t && u.name.startsWith(`${t.name} > `)));
}
