import type { SandboxManager, AcquireSpec } from '@/lib/sandbox/pool/manager';
import { HARNESS_VERSION, runTests, type HarnessResult, type HarnessTask } from './harness';
import { combine, components, type RewardComponents, type RewardWeights } from './score';
import { cpuBudgetMs } from './scoring-options';
import { withComputePhase } from '@/lib/compute/meter';

export type ScoreResult = {
  /** null when not scored: an infrastructure failure is never the policy's fault */
  reward: number | null;
  components: RewardComponents;
  status: 'scored' | 'env_mismatch' | 'sandbox_error';
  envHash: string;
  runtime: string;
  harnessVersion: string;
  harness: HarnessResult;
};

export const defaultWeights: RewardWeights = { passRate: 1, style: 0.1, efficiency: 0.1 };

/** Score one solution of one task from real execution in a sandbox. */
export async function scoreSolution(
  manager: SandboxManager,
  sandbox: AcquireSpec,
  task: HarnessTask,
  source: string,
  opts: { weights?: RewardWeights; testTimeoutMs?: number; cpuBudgetMs?: number; context?: { runId?: string; episodeId?: string } } = {},
): Promise<ScoreResult> {
  const testTimeoutMs = opts.testTimeoutMs ?? 2000;
  // the tests' sandbox run and the scoring count as grading (lib/compute/meter.ts)
  const h = await withComputePhase('grading', () => runTests(manager, sandbox, task, source, { testTimeoutMs, context: opts.context }));
  const c = components(h, { cpuBudgetMs: opts.cpuBudgetMs ?? cpuBudgetMs(task.tests) });
  const scored = h.status === 'ran';
  return {
    reward: scored ? combine(c, opts.weights ?? defaultWeights) : null,
    components: c,
    status: h.status === 'ran' ? 'scored' : h.status,
    envHash: h.exec.envHash,
    runtime: h.exec.runtime,
    harnessVersion: HARNESS_VERSION,
    harness: h,
  };
}
