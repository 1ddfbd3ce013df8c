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
 * Efficiency: full marks at or under `targetMs` per test, falling linearly to 0 at the
 * per-test time limit. Only earned when some test passes, so failing fast pays nothing.
 */
export function efficiencyScore(h: HarnessResult, targetMs: number, limitMs: number): number {
  if (h.testsPassed === 0) return 0;
  const mean = h.tests.reduce((a, t) => a + t.ms, 0) / Math.max(1, h.tests.length);
  if (mean <= targetMs) return 1;
  return Math.max(0, 1 - (mean - targetMs) / Math.max(1, limitMs - targetMs));
}

export function combine(c: Omit<RewardComponents, 'testsPassed' | 'testsTotal'>, w: RewardWeights): number {
  const total = w.passRate + w.style + w.efficiency;
  return (w.passRate * c.passRate + w.style * c.style + w.efficiency * c.efficiency) / total;
}

export function components(h: HarnessResult, opts: { targetMs?: number; limitMs: number }): RewardComponents {
  return {
    passRate: h.testsTotal ? h.testsPassed / h.testsTotal : 0,
    testsPassed: h.testsPassed,
    testsTotal: h.testsTotal,
    style: styleScore(h.style, h.testsPassed),
    efficiency: efficiencyScore(h, opts.targetMs ?? 5, opts.limitMs),
  };
}
