import { readdirSync, readFileSync } from 'node:fs';

/**
 * How long a sandbox's tasks were runnable but waiting for a CPU during one exec, measured on
 * the host (the code under test cannot change it), for cpu-verdict.ts:
 *
 * - cgroup v2 with PSI: the group's `cpu.pressure` line `some … total=<µs>` (time at least one
 *   of its tasks waited), read at the exec's start and end (cgroup.ts cpuPressureUs).
 * - cgroup v1 (no per-group PSI): `RunDelaySampler` below reads the second field of
 *   `/proc/<pid>/task/<tid>/schedstat` (run_delay: ns runnable but not running) of every
 *   thread in the group every 200 ms and adds, per interval, the threads' new wait capped
 *   at the interval (so it means "some task waited", as PSI does). A thread that lives
 *   less than one interval is missed (an undercount: more 'blocked', never a false
 *   'contended').
 * - no cgroup (not root): not measured (undefined).
 *
 * For gVisor and microVM sandboxes the group's threads are the runtime's (the Sentry, QEMU's
 * vCPUs): their wait is what the host withheld from the whole sandbox, which is the point.
 */

/** `total=` of the `some` line of a PSI file, in µs; undefined when absent or malformed. */
export function parsePressureSomeTotalUs(text: string): number | undefined {
  const m = /^some\b.*\btotal=(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The run_delay field (ns) of a schedstat line (`<on-cpu ns> <run_delay ns> <timeslices>`). */
export function parseRunDelayNs(text: string): number | undefined {
  const f = text.trim().split(/\s+/);
  if (f.length < 3) return undefined;
  const n = Number(f[1]);
  return Number.isFinite(n) ? n : undefined;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** run_delay (ns) of every thread of the given processes, by "pid/tid". */
export function runDelays(pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tids) {
      const t = read(`/proc/${pid}/task/${tid}/schedstat`);
      const v = t === undefined ? undefined : parseRunDelayNs(t);
      if (v !== undefined) out.set(`${pid}/${tid}`, v);
    }
  }
  return out;
}

/** True when this kernel keeps run_delay (schedstat present and sched_info on: this thread has been scheduled). */
export function runDelayAvailable(): boolean {
  const t = read('/proc/thread-self/schedstat');
  if (t === undefined) return false;
  const f = t.trim().split(/\s+/).map(Number);
  return f.length >= 3 && f[2]! > 0;
}

/**
 * Samples the run_delay of a group's threads while an exec runs (cgroup v1). Threads present
 * at the start count from the value they had then; threads born later from 0.
 */
export class RunDelaySampler {
  static readonly INTERVAL_MS = 200;
  private last: Map<string, number>;
  private lastAt: number;
  private waitNs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pids: () => number[]) {
    this.last = runDelays(pids());
    this.lastAt = performance.now();
    this.timer = setInterval(() => this.sample(), RunDelaySampler.INTERVAL_MS);
    this.timer.unref();
  }

  private sample(): void {
    const now = performance.now();
    const cur = runDelays(this.pids());
    let grew = 0;
    for (const [k, v] of cur) grew += Math.max(0, v - (this.last.get(k) ?? 0));
    // PSI-like "some": at most the interval itself, however many threads waited at once
    this.waitNs += Math.min(grew, (now - this.lastAt) * 1e6);
    for (const [k, v] of cur) this.last.set(k, v);
    this.lastAt = now;
  }

  /** A last sample (call before the group's processes are killed, where possible), then the total in ms. */
  stop(): number {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.sample();
    }
    return Math.round(this.waitNs / 1e6);
  }
}
