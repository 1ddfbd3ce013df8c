import { AsyncLocalStorage } from 'node:async_hooks';
import { COMPUTE_PHASE_PRIORITY, sandboxPhase, type ComputePhase, type ComputeUsage, type PhaseSeconds } from '@/core/compute';

/**
 * CPU (and GPU) seconds per job and phase, measured in the process that runs the job.
 *
 * - The process's own CPU (`process.cpuUsage()`: every thread, onnxruntime's included) is read
 *   at each event (a job starting or finishing, a phase scope opening or closing) and the time
 *   since the previous event is split evenly between the jobs in flight, each to the phase it is
 *   in (its most specific open scope). With one job at a time it is exact; with several it is an
 *   even share, the honest best a single process can say.
 * - A sandbox's CPU (its cgroup's, or the supervisor's rusage: `ExecResult.usage.cpuMs`) is
 *   added to the job and phase whose async context ran the exec (`recordSandboxCpu`), exactly.
 *
 * The job loop (workers/jobs) opens a ledger per job and commits its totals with the job's
 * effect; code below marks its phases with `withComputePhase`.
 */

type Clock = { cpuUsage: () => NodeJS.CpuUsage };
type Scope = { ledger: JobLedger; phase: ComputePhase };

const context = new AsyncLocalStorage<Scope>();

const add = (to: PhaseSeconds, phase: ComputePhase, seconds: number) => {
  if (seconds > 0) to[phase] = (to[phase] ?? 0) + seconds;
};

export class JobLedger {
  readonly cpu: PhaseSeconds = {};
  readonly gpu: PhaseSeconds = {};
  /** open scopes per phase (a job's scopes may overlap: tasks evaluated at once) */
  private readonly open = new Map<ComputePhase, number>();
  finished = false;

  constructor(
    private readonly meter: CpuMeter,
    readonly base: ComputePhase,
  ) {}

  /** The phase its process CPU goes to now: the most specific open scope, else the job's own. */
  current(): ComputePhase {
    let best = this.base;
    for (const [p, n] of this.open) if (n > 0 && COMPUTE_PHASE_PRIORITY[p] > COMPUTE_PHASE_PRIORITY[best]) best = p;
    return best;
  }

  enter(phase: ComputePhase): void {
    this.meter.settle();
    this.open.set(phase, (this.open.get(phase) ?? 0) + 1);
  }

  leave(phase: ComputePhase): void {
    this.meter.settle();
    this.open.set(phase, Math.max(0, (this.open.get(phase) ?? 0) - 1));
  }

  addCpu(phase: ComputePhase, seconds: number): void {
    add(this.cpu, phase, seconds);
  }

  addGpu(phase: ComputePhase, seconds: number): void {
    add(this.gpu, phase, seconds);
  }

  /** Stop counting (idempotent) and return what the job used. */
  finish(): ComputeUsage {
    if (!this.finished) {
      this.meter.settle();
      this.meter.remove(this);
      this.finished = true;
    }
    return { cpu: { ...this.cpu }, gpu: { ...this.gpu } };
  }
}

export class CpuMeter {
  private readonly active = new Set<JobLedger>();
  private last: NodeJS.CpuUsage;
  /** This process's CPU-seconds since the meter was made, per phase its jobs were in (heartbeat: workers.cpu_phase_seconds). */
  readonly totals: PhaseSeconds = {};

  constructor(private readonly clock: Clock = { cpuUsage: () => process.cpuUsage() }) {
    this.last = clock.cpuUsage();
  }

  /** Split the process CPU since the previous event between the jobs in flight. */
  settle(): void {
    const now = this.clock.cpuUsage();
    const seconds = (now.user - this.last.user + (now.system - this.last.system)) / 1e6;
    this.last = now;
    if (seconds <= 0 || this.active.size === 0) return;
    const share = seconds / this.active.size;
    for (const l of this.active) {
      const phase = l.current();
      l.addCpu(phase, share);
      add(this.totals, phase, share);
    }
  }

  /** A ledger for one job whose own phase is `base`; `run` its work inside it. */
  start(base: ComputePhase): JobLedger {
    this.settle();
    const l = new JobLedger(this, base);
    this.active.add(l);
    return l;
  }

  remove(l: JobLedger): void {
    this.active.delete(l);
  }

  /** Run `fn` with `ledger` as the async context's job (its sandbox execs and phase scopes count there). */
  run<T>(ledger: JobLedger, fn: () => Promise<T>): Promise<T> {
    return context.run({ ledger, phase: ledger.base }, fn);
  }
}

/** The meter of this process's jobs (the job loop's). */
export const processMeter = new CpuMeter();

/**
 * Run `fn` as `phase` of the current job (a no-op outside one): the worker's CPU meanwhile and
 * the sandboxes it runs count there. Nested scopes keep the more specific phase (grading inside
 * a held-out evaluation stays held-out evaluation).
 */
export async function withComputePhase<T>(phase: ComputePhase, fn: () => Promise<T>): Promise<T> {
  const outer = context.getStore();
  if (!outer || outer.ledger.finished) return fn();
  const effective = COMPUTE_PHASE_PRIORITY[phase] >= COMPUTE_PHASE_PRIORITY[outer.phase] ? phase : outer.phase;
  outer.ledger.enter(effective);
  try {
    return await context.run({ ledger: outer.ledger, phase: effective }, fn);
  } finally {
    outer.ledger.leave(effective);
  }
}

/** A sandbox exec's CPU (ms), added to the job and phase that ran it (nothing outside a job). */
export function recordSandboxCpu(cpuMs: number): void {
  const s = context.getStore();
  if (s && !s.ledger.finished && cpuMs > 0) s.ledger.addCpu(sandboxPhase(s.phase), cpuMs / 1000);
}

/** GPU-seconds a job's work used (e.g. a policy step on a GPU), added to the current phase. */
export function recordGpuSeconds(seconds: number): void {
  const s = context.getStore();
  if (s && !s.ledger.finished && seconds > 0) s.ledger.addGpu(s.phase, seconds);
}

/**
 * Make every `run` of a session that executes on a GPU count its wall time as GPU-seconds of the
 * job and phase that called it (an upper bound of the kernels' time: the call waits for them).
 */
export function meterGpuRuns<S extends { run: (...args: never[]) => Promise<unknown> }>(session: S): S {
  const run = session.run.bind(session) as (...args: unknown[]) => Promise<unknown>;
  session.run = (async (...args: unknown[]) => {
    const t0 = performance.now();
    try {
      return await run(...args);
    } finally {
      recordGpuSeconds((performance.now() - t0) / 1000);
    }
  }) as S['run'];
  return session;
}
