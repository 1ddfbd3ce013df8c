import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ownerAlive, parseOwnerTag } from '../pool/owner';
import { parsePressureSomeTotalUs } from './cpu-wait';

/**
 * Per-sandbox cgroups: memory, CPU quota and pids limits plus the usage counters an exec
 * result reports. cgroup v2 is used where the unified hierarchy has the controllers,
 * v1 otherwise; sandbox groups nest under this process's own cgroup (never above it).
 */
export type CgroupMode = 'v2' | 'v1' | 'none';
type Controller = 'memory' | 'cpu' | 'cpuacct' | 'pids';

export type CgroupLayout = { mode: 'v2'; base: string } | { mode: 'v1'; bases: Record<Controller, string> } | { mode: 'none'; reason: string };

const CG = '/sys/fs/cgroup';
const GROUP_DIR = 'crucible';

function ownPaths(): { v2?: string; v1: Map<string, string> } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, ctrls, p] = line.split(':', 3) as [string, string, string];
    if (ctrls === '') v2 = p;
    else for (const c of ctrls.split(',')) v1.set(c, p);
  }
  return { v2, v1 };
}

function v1Mounts(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
    const [, dir, type, opts] = line.split(' ');
    if (type !== 'cgroup' || !dir || !opts) continue;
    for (const o of opts.split(',')) out.set(o, dir);
  }
  return out;
}

let layout: CgroupLayout | undefined;

export function cgroupLayout(): CgroupLayout {
  layout ??= detect();
  return layout;
}

function detect(): CgroupLayout {
  if (process.getuid?.() !== 0) return { mode: 'none', reason: 'not running as root' };
  const own = ownPaths();
  const unifiedControllers = existsSync(`${CG}/cgroup.controllers`) ? readFileSync(`${CG}/cgroup.controllers`, 'utf8') : '';
  if (/\bmemory\b/.test(unifiedControllers) && own.v2 !== undefined) {
    // v2: our own group holds this process, so sandboxes go in a sibling-free subtree
    // under it; enabling controllers needs them delegated to our group.
    const mine = path.join(CG, own.v2);
    const base = path.join(mine, GROUP_DIR);
    try {
      mkdirSync(base, { recursive: true });
      writeFileSync(path.join(base, 'cgroup.subtree_control'), '+memory +cpu +pids');
      tryWrite(path.join(base, 'cpu.weight'), String(Math.min(10_000, 100 * availableParallelism())));
      return { mode: 'v2', base };
    } catch (e) {
      return { mode: 'none', reason: `cgroup v2 controllers not delegated to ${mine}: ${(e as Error).message}` };
    }
  }
  const mounts = v1Mounts();
  const bases = {} as Record<Controller, string>;
  for (const c of ['memory', 'cpu', 'cpuacct', 'pids'] as const) {
    const m = mounts.get(c);
    if (!m) return { mode: 'none', reason: `cgroup v1 controller ${c} is not mounted` };
    bases[c] = path.join(m, own.v1.get(c) ?? '/', GROUP_DIR);
  }
  try {
    for (const b of Object.values(bases)) mkdirSync(b, { recursive: true });
    // see cpuWeight(): all sandboxes together weigh as much as the host's CPUs, not one task
    tryWrite(path.join(bases.cpu, 'cpu.shares'), String(1024 * availableParallelism()));
  } catch (e) {
    return { mode: 'none', reason: `cannot create cgroups: ${(e as Error).message}` };
  }
  return { mode: 'v1', bases };
}

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};
const write = (file: string, v: string) => writeFileSync(file, v);
const tryWrite = (file: string, v: string) => {
  try {
    writeFileSync(file, v);
  } catch {
    /* optional knob (e.g. memsw without swap accounting) */
  }
};

function pidsIn(dir: string): number[] {
  const out = read(path.join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out.push(...pidsIn(path.join(dir, e.name)));
  } catch {
    /* removed meanwhile */
  }
  return out;
}

export type CgroupLimits = { memoryMb: number; cpus: number; pids: number };

/*
 * CPU weight: a group competes with its siblings as one entity of weight 1024 (v1 shares)
 * or 100 (v2), however many threads it runs. Left at the default, every sandbox together
 * would weigh as much as a single host task, and a multi-threaded program (node) would get
 * far less CPU under host load than the same program started directly. So a sandbox weighs
 * what its vCPU quota says (1024 × cpus), and the `crucible` parent as much as the host's
 * CPUs; the quota (cfs/cpu.max) still caps each sandbox.
 */

/** One sandbox's cgroup(s). All methods are synchronous and cheap (a few small file I/Os). */
export class SandboxCgroup {
  readonly dirs: string[];
  private constructor(
    readonly layout: CgroupLayout,
    private readonly d: Partial<Record<Controller, string>>,
  ) {
    this.dirs = [...new Set(Object.values(d))];
  }

  static create(name: string, limits: CgroupLimits): SandboxCgroup {
    const l = cgroupLayout();
    if (l.mode === 'none') return new SandboxCgroup(l, {});
    if (l.mode === 'v2') {
      const dir = path.join(l.base, name);
      mkdirSync(dir);
      const cg = new SandboxCgroup(l, { memory: dir, cpu: dir, cpuacct: dir, pids: dir });
      write(path.join(dir, 'memory.max'), String(limits.memoryMb * 1024 * 1024));
      tryWrite(path.join(dir, 'memory.swap.max'), '0');
      write(path.join(dir, 'cpu.max'), `${Math.round(limits.cpus * 100_000)} 100000`);
      tryWrite(path.join(dir, 'cpu.weight'), String(Math.max(1, Math.min(10_000, Math.round(100 * limits.cpus)))));
      write(path.join(dir, 'pids.max'), String(limits.pids));
      return cg;
    }
    const d = {} as Record<Controller, string>;
    for (const [c, b] of Object.entries(l.bases) as [Controller, string][]) {
      d[c] = path.join(b, name);
      mkdirSync(d[c]);
    }
    const cg = new SandboxCgroup(l, d);
    const bytes = String(limits.memoryMb * 1024 * 1024);
    write(path.join(d.memory, 'memory.limit_in_bytes'), bytes);
    tryWrite(path.join(d.memory, 'memory.memsw.limit_in_bytes'), bytes);
    write(path.join(d.cpu, 'cpu.cfs_period_us'), '100000');
    write(path.join(d.cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * 100_000)));
    tryWrite(path.join(d.cpu, 'cpu.shares'), String(Math.max(2, Math.round(1024 * limits.cpus))));
    write(path.join(d.pids, 'pids.max'), String(limits.pids));
    return cg;
  }

  get mode(): CgroupMode {
    return this.layout.mode;
  }

  /** Move a process in (v1: into every controller's group). */
  addPid(pid: number): void {
    for (const dir of this.dirs) write(path.join(dir, 'cgroup.procs'), String(pid));
  }

  /** Every process in the group and its nested groups (an OCI runtime nests its own). */
  pids(): number[] {
    const dir = this.d.pids ?? this.d.memory;
    return dir ? pidsIn(dir) : [];
  }

  /**
   * SIGKILL everything in the group except `keep` (a warm sandbox's own supervisor); loops
   * because v1 has no atomic kill and forks race.
   */
  killAll(keep?: ReadonlySet<number>): number {
    if (this.layout.mode === 'none') return 0;
    if (!keep?.size && this.layout.mode === 'v2' && existsSync(path.join(this.d.memory!, 'cgroup.kill'))) {
      tryWrite(path.join(this.d.memory!, 'cgroup.kill'), '1');
    }
    let killed = 0;
    for (let round = 0; round < 200; round++) {
      const pids = keep?.size ? this.pids().filter((p) => !keep.has(p)) : this.pids();
      if (pids.length === 0) return killed;
      for (const p of pids) {
        try {
          process.kill(p, 'SIGKILL');
          killed++;
        } catch {
          /* already gone */
        }
      }
      if (round > 2) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
    return killed;
  }

  /** Zero the peak-memory and CPU counters before an exec (v1; v2 peak resets per group). */
  resetCounters(): void {
    if (this.layout.mode === 'v1') {
      tryWrite(path.join(this.d.memory!, 'memory.max_usage_in_bytes'), '0');
      tryWrite(path.join(this.d.memory!, 'memory.failcnt'), '0');
      tryWrite(path.join(this.d.memory!, 'memory.memsw.failcnt'), '0');
      tryWrite(path.join(this.d.cpuacct!, 'cpuacct.usage'), '0');
    } else if (this.layout.mode === 'v2') {
      tryWrite(path.join(this.d.memory!, 'memory.peak'), 'reset');
    }
  }

  cpuUsageNs(): number {
    if (this.layout.mode === 'v1') return Number(read(path.join(this.d.cpuacct!, 'cpuacct.usage')).trim() || 0);
    if (this.layout.mode === 'v2') {
      const m = /usage_usec (\d+)/.exec(read(path.join(this.d.cpu!, 'cpu.stat')));
      return m ? Number(m[1]) * 1000 : 0;
    }
    return 0;
  }

  /**
   * cgroup v2 with PSI: the group's cumulative `cpu.pressure` "some" total (µs: time at least
   * one of its tasks was runnable but waiting for a CPU). Undefined elsewhere (v1 has no
   * per-group PSI; see cpu-wait.ts for the sampled fallback).
   */
  cpuPressureUs(): number | undefined {
    if (this.layout.mode !== 'v2') return undefined;
    return parsePressureSomeTotalUs(read(path.join(this.d.cpu!, 'cpu.pressure')));
  }

  /**
   * Time (µs) the group was held back by its own CPU quota (cfs throttling: v1 `throttled_time`
   * ns, v2 `throttled_usec`). Its tasks wait for a CPU meanwhile, but that wait is the
   * command's own doing, so cpuWaitMs leaves it out.
   */
  cpuThrottledUs(): number {
    const stat = read(path.join(this.d.cpu ?? '', 'cpu.stat'));
    if (this.layout.mode === 'v1') return Number(/^throttled_time (\d+)/m.exec(stat)?.[1] ?? 0) / 1000;
    if (this.layout.mode === 'v2') return Number(/^throttled_usec (\d+)/m.exec(stat)?.[1] ?? 0);
    return 0;
  }

  memoryPeakBytes(): number {
    if (this.layout.mode === 'v1') return Number(read(path.join(this.d.memory!, 'memory.max_usage_in_bytes')).trim() || 0);
    if (this.layout.mode === 'v2') return Number(read(path.join(this.d.memory!, 'memory.peak')).trim() || 0);
    return 0;
  }

  /** How many processes the kernel OOM-killed in this group so far. */
  oomKills(): number {
    const file = this.layout.mode === 'v1' ? 'memory.oom_control' : this.layout.mode === 'v2' ? 'memory.events' : undefined;
    if (!file) return 0;
    const m = /oom_kill (\d+)/.exec(read(path.join(this.d.memory!, file)));
    return m ? Number(m[1]) : 0;
  }

  /**
   * Times the group's memory limit was hit since the last reset. v1 counts OOM kills only
   * in the victim's own group (not its parents), so a nested group that is gone by now
   * (an OCI runtime's) is still seen here.
   */
  memoryLimitHits(): number {
    if (this.layout.mode === 'v1') {
      return ['memory.failcnt', 'memory.memsw.failcnt'].reduce((n, f) => n + Number(read(path.join(this.d.memory!, f)).trim() || 0), 0);
    }
    if (this.layout.mode === 'v2') {
      const m = /^max (\d+)/m.exec(read(path.join(this.d.memory!, 'memory.events')));
      return m ? Number(m[1]) : 0;
    }
    return 0;
  }

  /** For OCI runtimes: the group path relative to each hierarchy root. */
  relativePath(): string | undefined {
    const dir = this.d.memory;
    if (!dir) return undefined;
    return dir.replace(/^\/sys\/fs\/cgroup\/(memory\/)?/, '/');
  }

  destroy(): void {
    this.killAll();
    for (const dir of this.dirs) removeGroup(dir);
  }
}

function removeGroup(dir: string): void {
  for (let i = 0; i < 50; i++) {
    try {
      // nested groups (e.g. an OCI runtime's child) go first
      for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeGroup(path.join(dir, e.name));
      rmdirSync(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

/** Kill what is left in recorded group directories and remove them (crash sweep). */
export function removeRecordedGroups(dirs: string[]): void {
  for (const dir of dirs) {
    if (!dir.startsWith('/sys/fs/cgroup/') || !existsSync(dir)) continue;
    for (const p of pidsIn(dir)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    removeGroup(dir);
  }
}

/** Remove the groups of sandboxes whose owning worker is dead. Returns their names. */
export function sweepDeadCgroups(): string[] {
  const l = cgroupLayout();
  if (l.mode === 'none') return [];
  const bases = l.mode === 'v2' ? [l.base] : [...new Set(Object.values(l.bases))];
  const swept = new Set<string>();
  for (const base of bases) {
    let names: string[] = [];
    try {
      names = readdirSync(base, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = parseOwnerTag(name);
      if (!owner || ownerAlive(owner)) continue;
      const dir = path.join(base, name);
      for (const p of pidsIn(dir)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      removeGroup(dir);
      swept.add(name);
    }
  }
  return [...swept];
}
