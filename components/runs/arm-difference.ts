import type { MetricSampleView } from './metric-groups';

export type ArmDifferenceRow = {
  /** the policy version the iteration's rewards describe (the metric's step) */
  step: number;
  rl: number;
  control: number;
  /** rl − control */
  diff: number;
  /** half-width of its 95% interval from the two iterations' reward spread and n, when both report a spread */
  halfWidth: number | null;
};

/** The newest value per step of one metric. */
function byStep(samples: readonly MetricSampleView[], name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of samples) if (s.name === name && s.step != null && Number.isFinite(s.value)) out.set(s.step, s.value);
  return out;
}

/**
 * Per iteration, the RL arm's mean reward minus its control's, with a 95% interval from each
 * arm's reward standard deviation over its `n` episodes (normal approximation, the arms'
 * episodes independent): with 8 episodes a difference of 0.2 is often noise, and the interval
 * says so. Steps where either arm has no mean are left out.
 */
export function armDifference(rl: readonly MetricSampleView[], control: readonly MetricSampleView[], n: number): ArmDifferenceRow[] {
  const [m1, m2, s1, s2] = [byStep(rl, 'reward_mean'), byStep(control, 'reward_mean'), byStep(rl, 'reward_std'), byStep(control, 'reward_std')];
  const rows: ArmDifferenceRow[] = [];
  for (const [step, a] of [...m1].sort((x, y) => x[0] - y[0])) {
    const b = m2.get(step);
    if (b === undefined) continue;
    const sa = s1.get(step);
    const sb = s2.get(step);
    const halfWidth = sa === undefined || sb === undefined || n < 1 ? null : 1.96 * Math.sqrt((sa * sa) / n + (sb * sb) / n);
    rows.push({ step, rl: a, control: b, diff: a - b, halfWidth });
  }
  return rows;
}
