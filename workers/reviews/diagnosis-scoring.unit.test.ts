import { describe, expect, it } from 'vitest';
import { defaultRunConfig, episodeSandboxLimits, runConfigSchema } from '@/core/run-config';
import { parseSettings, rlSettings } from '@/core/settings';
import { scoringOptions } from '@/workers/rl/reward/scoring-options';
import { diagnosisScoring } from './diagnose';

// A run whose scoring differs from the defaults everywhere a run can change it.
const run = {
  config: runConfigSchema.parse({ rewardWeights: { passRate: 1, style: 0.5, efficiency: 0 }, isolation: { routine: 'bwrap', high: 'oci:runsc' } }),
};
const task = {
  risk: 'high' as const,
  environmentName: 'py-extra',
  tests: {
    kind: 'io' as const,
    cases: [
      { input: '1', output: '2' },
      { input: '2', output: '3' },
    ],
  },
};
const s = rlSettings(parseSettings({ CRUCIBLE_RL_TEST_TIMEOUT_MS: '777' }));

describe("diagnosis re-runs score under the episode's options, not defaults", () => {
  it("uses the run's weights, the episode limits, the worker's test timeout and the runtime the episode recorded", () => {
    const o = diagnosisScoring(run, task as never, { runtime: 'bwrap' }, s);
    expect(o).toEqual(scoringOptions(run, task as never, s, { runtime: 'bwrap' }));
    expect(o.weights).toEqual({ passRate: 1, style: 0.5, efficiency: 0 });
    expect(o.weights).not.toEqual(defaultRunConfig.rewardWeights);
    expect(o.sandbox).toMatchObject({ runtime: 'bwrap', env: 'py-extra', limits: episodeSandboxLimits });
    expect(o.testTimeoutMs).toBe(777);
    expect(o.cpuBudgetMs).toBe(1000 + 2 * 50);
  });

  it("an episode without a recorded runtime re-runs on the run's runtime for the task's risk", () => {
    expect(diagnosisScoring(run, task as never, { runtime: null }, s).sandbox.runtime).toBe('oci:runsc');
  });
});
