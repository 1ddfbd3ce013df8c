/**
 * Whose fault a time limit is. A limit that decides a reward counts the candidate's own CPU
 * time; wall clock is only a safety net (the ceiling). When the ceiling expires before the
 * CPU limit was used up, the candidate was either blocked (sleeping, waiting on a lock or a
 * pipe that never comes: its failure) or kept off the CPU by a busy host (an infrastructure
 * failure: not scored, retried). The two are told apart by how long the candidate's tasks
 * were runnable but waiting for a CPU (`cpuWaitMs`): a host-side measurement where the
 * sandbox's cgroup gives one (ExecResult.usage.cpuWaitMs), or the runqueue wait the I/O
 * harness reads inside the sandbox (trusted.py, the same rule).
 *
 * Pure and synchronous: plain numbers in, a verdict out (cpu-verdict.unit.test.ts).
 */
export type CpuVerdict =
  /** within both limits */
  | 'ok'
  /** the candidate used its CPU budget: its failure, whatever the wall clock says */
  | 'cpu_limit'
  /** the wall ceiling expired while the candidate was mostly neither running nor waiting for a CPU: its failure */
  | 'blocked'
  /** the wall ceiling expired while the candidate was mostly waiting for a CPU: the host's failure (reward null, retry) */
  | 'contended';

export type CpuMeasure = {
  /** wall time the command ran (ExecResult.durationMs) */
  wallMs: number;
  /** CPU time the command used (ExecResult.usage.cpuMs) */
  cpuMs: number;
  /**
   * Time the command's tasks were runnable but waiting for a CPU (ExecResult.usage.cpuWaitMs);
   * undefined where the tier does not measure it (then an expired ceiling is 'blocked', as a
   * plain wall-clock limit would have judged it: keep the ceiling generous there)
   */
  cpuWaitMs?: number;
  /** the CPU budget that decides the candidate's failure */
  cpuLimitMs: number;
  /** the wall-clock safety net (the exec's timeoutMs) */
  ceilingMs: number;
  /** the exec reported a wall timeout (ExecResult.status 'timeout'); otherwise wallMs ≥ ceilingMs is taken as one */
  timedOut?: boolean;
};

/**
 * A wait counts as contention when it makes up at least half of the time the command was not
 * running, and at least a tenth of the wall time (a few ms of runqueue wait of a sleeper that
 * woke now and then is no contention).
 */
export const CONTENDED = { ofNotRunning: 0.5, ofWall: 0.1 } as const;

export function cpuVerdict(m: CpuMeasure): CpuVerdict {
  if (m.cpuMs >= m.cpuLimitMs) return 'cpu_limit';
  const expired = m.timedOut ?? m.wallMs >= m.ceilingMs;
  if (!expired) return 'ok';
  if (m.cpuWaitMs === undefined || !Number.isFinite(m.cpuWaitMs)) return 'blocked';
  const notRunning = Math.max(0, m.wallMs - m.cpuMs);
  const contended = m.cpuWaitMs >= CONTENDED.ofNotRunning * notRunning && m.cpuWaitMs >= CONTENDED.ofWall * m.wallMs && m.cpuWaitMs > 0;
  return contended ? 'contended' : 'blocked';
}

/** True for the verdicts that are the candidate's own failure (a 0 is deserved); false for 'ok' and 'contended'. */
export function candidateFailed(v: CpuVerdict): boolean {
  return v === 'cpu_limit' || v === 'blocked';
}

/**
 * The wall-clock ceiling for a CPU limit: four times the limit, and at least the limit plus
 * 3 s. A CPU-bound candidate reaches it only with under a quarter of a CPU for the whole
 * time; a blocked one (sleeping, deadlocked) fails there, so the ceiling is also what a
 * sleeper costs. Used per test by the I/O harness (harness.ts).
 */
export function wallCeilingMs(cpuLimitMs: number): number {
  return Math.max(4 * cpuLimitMs, cpuLimitMs + 3000);
}
