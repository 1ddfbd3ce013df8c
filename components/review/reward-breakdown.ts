/**
 * How a reward came from its components, for the review card: each weighted component's
 * value, weight and share of the reward (w·c / Σw, as workers/rl/reward/score.ts and
 * repo-episode-reward.ts combine them), and their sum. Null when the components do not carry
 * what the formula needs (an older reward, an unknown kind).
 */
export type BreakdownRow = { name: string; value: number; weight: number; contribution: number };
export type Weights = { passRate: number; style: number; efficiency: number };

export function rewardBreakdown(
  components: Record<string, unknown> | null,
  weights: Weights | null,
  repoReward: 'fraction' | 'resolved' | null,
): { rows: BreakdownRow[]; sum: number } | null {
  if (!components || !weights) return null;
  const num = (k: string) => (typeof components[k] === 'number' ? (components[k] as number) : undefined);
  if (repoReward === 'resolved') {
    const r = num('resolved');
    return r === undefined ? null : { rows: [{ name: 'resolved', value: r, weight: 1, contribution: r }], sum: r };
  }
  // a repository task's test score is `tests`; an input/output task's is `passRate`
  const tests = num('passRate') ?? num('tests');
  const style = num('style');
  const efficiency = num('efficiency');
  if (tests === undefined || style === undefined || efficiency === undefined) return null;
  const total = weights.passRate + weights.style + weights.efficiency;
  if (!(total > 0)) return null;
  const rows = [
    { name: num('passRate') !== undefined ? 'passRate' : 'tests', value: tests, weight: weights.passRate },
    { name: 'style', value: style, weight: weights.style },
    { name: 'efficiency', value: efficiency, weight: weights.efficiency },
  ].map((r) => ({ ...r, contribution: (r.weight * r.value) / total }));
  return { rows, sum: rows.reduce((a, r) => a + r.contribution, 0) };
}
