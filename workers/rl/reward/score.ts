import type { HarnessResult } from './harness';

export type RewardWeights = { passRate: number; style: number; efficiency: number };
export type RewardComponents = { passRate: number; testsPassed: number; testsTotal: number; style: number; efficiency: number };

/**
 * Style: 0 on a syntax error, else 1 minus 0.2 for each distinct lint issue. Like
 * efficiency, only earned when some test passes: tidy code that does nothing earns nothing.
 */
export function styleScore(s: HarnessResult['style'], testsPassed: number): number {
  if (!s.syntaxOk || testsPassed === 0) return 0;
  return Math.max(0, 1 - 0.2 * s.issues.length);
}

/**
 * Efficiency measures the code, not the machine: the CPU time of the whole scoring run
 * (the sandbox's cgroup, so the candidate cannot report it, and a busy host does not
 * inflate it as it does wall time) against the task's budget, in three coarse buckets:
 * 1 within the budget, 0.5 within three times it, else 0. Solutions differ in reward only
 * when they differ by far more than measurement noise. Only earned when some test passes.
 */
export const EFFICIENCY_BUCKETS = [
  { upTo: 1, score: 1 },
  { upTo: 3, score: 0.5 },
] as const;

export function efficiencyScore(h: Pick<HarnessResult, 'testsPassed' | 'exec'>, cpuBudgetMs: number): number {
  if (h.testsPassed === 0) return 0;
  const ratio = h.exec.usage.cpuMs / Math.max(1, cpuBudgetMs);
  return EFFICIENCY_BUCKETS.find((b) => ratio <= b.upTo)?.score ?? 0;
}

export function combine(c: Omit<RewardComponents, 'testsPassed' | 'testsTotal'>, w: RewardWeights): number {
  const total = w.passRate + w.style + w.efficiency;
  return (w.passRate * c.passRate + w.style * c.style + w.efficiency * c.efficiency) / total;
}

export function components(h: HarnessResult, opts: { cpuBudgetMs: number }): RewardComponents {
  return {
    passRate: h.testsTotal ? h.testsPassed / h.testsTotal : 0,
    testsPassed: h.testsPassed,
    testsTotal: h.testsTotal,
    style: styleScore(h.style, h.testsPassed),
    efficiency: efficiencyScore(h, opts.cpuBudgetMs),
  };
}
