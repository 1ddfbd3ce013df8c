import { describe, expect, it } from 'vitest';
import { patchIssues, repoEpisodeReward } from './repo-episode-reward';

const config = { rewardWeights: { passRate: 1, style: 0.1, efficiency: 0.1 }, maxTurns: 30 };
const clean = 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n';
const graded = (reward: number) => ({ reward, components: { f2p: reward, p2p: 1, p2p_all: 1 }, rejectedPaths: [] as string[] });

describe('repository episode reward (plain data)', () => {
  it('repoReward "resolved": SWE-bench\'s 0/1, nothing blended in, 0 whenever the grader zeroed the score', () => {
    const resolved = { ...config, repoReward: 'resolved' as const };
    const g = (reward: number, resolvedComponent: number) => ({ ...graded(reward), components: { ...graded(reward).components, resolved: resolvedComponent } });
    expect(repoEpisodeReward(g(1, 1), { patch: clean, binarySkipped: [], turns: 29 }, resolved)).toMatchObject({ reward: 1, components: { efficiency: 0.5 } });
    expect(repoEpisodeReward(g(0.5, 0), { patch: clean, binarySkipped: [], turns: 2 }, resolved).reward).toBe(0);
    expect(repoEpisodeReward(g(0, 1), { patch: clean, binarySkipped: [], turns: 2 }, resolved).reward).toBe(0);
    // the fraction stays the default
    expect(repoEpisodeReward(g(0.5, 0), { patch: clean, binarySkipped: [], turns: 2 }, config).reward).toBeGreaterThan(0);
  });

  it('a clean fix in few turns earns every component: 1', () => {
    const r = repoEpisodeReward(graded(1), { patch: clean, binarySkipped: [], turns: 4 }, config);
    expect(r.reward).toBeCloseTo(1, 12);
    expect(r.components).toMatchObject({ tests: 1, style: 1, efficiency: 1, f2p: 1, p2p_all: 1, turns: 4 });
  });

  it('style and efficiency are blended by the run weights, and only earned with a test score', () => {
    const messy = clean.replace('+a = 2\n', '+a = 2   \n\\ No newline at end of file\n');
    const r = repoEpisodeReward({ ...graded(1), rejectedPaths: ['tests/test_x.py'] }, { patch: messy, binarySkipped: ['b.bin'], turns: 25 }, config);
    expect(r.components).toMatchObject({ tests: 1, efficiency: 0.5, style_issues: 4 });
    expect(r.components.style).toBeCloseTo(0.2, 12);
    expect(r.reward).toBeCloseTo((1 + 0.1 * 0.2 + 0.1 * 0.5) / 1.2, 12);
    // nothing fixed: a tidy patch and one turn earn nothing
    expect(repoEpisodeReward(graded(0), { patch: clean, binarySkipped: [], turns: 1 }, config)).toMatchObject({
      reward: 0,
      components: { style: 0, efficiency: 0 },
    });
    // weights: tests alone
    expect(
      repoEpisodeReward(graded(0.5), { patch: clean, binarySkipped: [], turns: 30 }, { ...config, rewardWeights: { passRate: 1, style: 0, efficiency: 0 } })
        .reward,
    ).toBe(0.5);
  });

  it('names each kind of untidiness once', () => {
    expect(patchIssues(clean, [], [])).toEqual([]);
    expect(patchIssues(`${clean}+b = 3 \n+c = 4\t\n`, [], [])).toEqual(['trailing whitespace']);
    expect(patchIssues('--- a/x\n+++ b/x \n', [], [])).toEqual([]); // a header is not an added line
  });
});
