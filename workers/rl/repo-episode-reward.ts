import type { RepoGrade } from '@/core/repo-tasks';
import type { RunConfig } from '@/core/run-config';
import { combine, EFFICIENCY_BUCKETS } from './reward/score';

/**
 * A repository episode's reward (the functional core; agent-episode.ts stores it): the
 * grader's test score (FAIL_TO_PASS fraction, gated on PASS_TO_PASS, as `repoRewardWeights`
 * say) blended by the run's `rewardWeights` with two components of the agent's own work, as
 * input/output episodes blend theirs. Both are only earned when some test score is earned:
 * a tidy patch that fixes nothing, or an agent that submits at once, earns nothing.
 *
 * - style: 1 minus 0.2 for each kind of untidiness in the patch: trailing whitespace on an
 *   added line, a changed file left without a final newline, binary files (not diffable),
 *   changes to test files or test configuration (dropped by the grader).
 * - efficiency: the turns used against the run's maxTurns, in the coarse buckets I/O uses
 *   for CPU time (EFFICIENCY_BUCKETS): 1 within a third of maxTurns, else 0.5.
 *
 * With `repoReward: 'resolved'` the reward is SWE-bench's binary one instead (the grade's
 * `resolved` component), nothing blended in; the components are recorded all the same.
 */
export function repoEpisodeReward(
  grade: Pick<RepoGrade, 'reward' | 'components' | 'rejectedPaths'>,
  episode: { patch: string; binarySkipped: string[]; turns: number },
  config: Pick<RunConfig, 'rewardWeights' | 'maxTurns'> & Partial<Pick<RunConfig, 'repoReward'>>,
): { reward: number; components: Record<string, number> } {
  const tests = grade.reward ?? 0;
  const issues = patchIssues(episode.patch, episode.binarySkipped, grade.rejectedPaths);
  const style = tests > 0 ? Math.max(0, 1 - 0.2 * issues.length) : 0;
  // a third of the turns is "within budget"; all of them is the 3× bucket
  const ratio = episode.turns / Math.max(1, config.maxTurns / 3);
  const efficiency = tests > 0 ? (EFFICIENCY_BUCKETS.find((b) => ratio <= b.upTo)?.score ?? 0) : 0;
  // resolved: SWE-bench's 0/1, and 0 whenever the grader zeroed the score (a tampered run, a broken PASS_TO_PASS)
  const resolved = tests > 0 && grade.components.resolved === 1 ? 1 : 0;
  const reward = config.repoReward === 'resolved' ? resolved : combine({ passRate: tests, style, efficiency }, config.rewardWeights);
  return { reward, components: { ...grade.components, tests, style, efficiency, style_issues: issues.length, turns: episode.turns } };
}

/** The kinds of untidiness in a patch (each counted once). */
export function patchIssues(patch: string, binarySkipped: string[], rejectedPaths: string[]): string[] {
  const issues: string[] = [];
  const added = patch.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
  if (added.some((l) => /[ \t]+$/.test(l))) issues.push('trailing whitespace');
  if (/^\+.*\n\\ No newline at end of file/m.test(patch)) issues.push('no final newline');
  if (binarySkipped.length) issues.push('binary files');
  if (rejectedPaths.length) issues.push('changes to test files or test configuration');
  return issues;
}
