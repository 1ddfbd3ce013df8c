import type { RunConfig } from '@/core/run-config';
import { episodeSandboxLimits } from '@/core/run-config';
import type { TaskTests } from '@/core/tasks';
import type { AcquireSpec } from '@/lib/sandbox/pool/manager';
import type { RewardWeights } from './score';

/** Everything that decides how one solution of one task is scored, besides the code itself. */
export type ScoringOptions = {
  sandbox: AcquireSpec & { runtime: string; env: string };
  weights: RewardWeights;
  /** per test (per call into the candidate; a HumanEval check() is one test) */
  testTimeoutMs: number;
  /** the efficiency component's budget: CPU time of the whole scoring run (see score.ts) */
  cpuBudgetMs: number;
};

/** CPU a scoring run may use for full efficiency: two interpreter starts plus a little per test. */
export const CPU_BUDGET = { baseMs: 1000, perTestMs: 50 } as const;

export function cpuBudgetMs(tests: TaskTests): number {
  return CPU_BUDGET.baseMs + CPU_BUDGET.perTestMs * (tests.kind === 'io' ? tests.cases.length : 1);
}

/**
 * The one place an episode's scoring options are built: episodes, held-out evaluation and
 * the diagnosis re-run of a disputed reward all call this, so a re-run scores under the
 * same limits, timeouts, weights and runtime as the episode did. `runtime` overrides the
 * run's isolation mapping (a diagnosis re-runs on the runtime the episode recorded).
 */
export function scoringOptions(
  run: { config: Pick<RunConfig, 'isolation' | 'rewardWeights'> },
  task: { risk: 'routine' | 'high'; environmentName: string | null; tests: TaskTests },
  settings: { testTimeoutMs: number },
  override: { runtime?: string | null; env?: string } = {},
): ScoringOptions {
  return {
    sandbox: {
      runtime: override.runtime ?? run.config.isolation[task.risk],
      env: override.env ?? task.environmentName ?? 'default',
      limits: episodeSandboxLimits,
    },
    weights: run.config.rewardWeights,
    testTimeoutMs: settings.testTimeoutMs,
    cpuBudgetMs: cpuBudgetMs(task.tests),
  };
}
