import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { sandboxEnv } from '@/lib/sandbox/runtimes/bwrap';
import { SandboxCgroup } from '@/lib/sandbox/limits/cgroup';
import { ownerTag } from '@/lib/sandbox/pool/owner';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { launcherUnavailable, sharedLauncher } from '@/lib/sandbox/runtimes/launcher';
import { GvisorRuntime } from '@/lib/sandbox/runtimes/gvisor';
import { MicrovmRuntime } from '@/lib/sandbox/runtimes/microvm';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { envStoreDir } from '@/db/open-database';
import { settings } from '@/core/settings';

/**
 * `npm run bench -- sandbox [--runs N] [--leak-execs N] [--concurrency 1,2,4,8] [--runtime bwrap|gvisor|NAME] [--json]`
 * Sandboxed runs side by side with the same programs started by plain `spawn` (the floor);
 * another runtime's cold start and warm execs also side by side with bwrap's, in the same run.
 */
const PY_TEST = `
def add(a, b): return a + b
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
tests = [lambda: add(2, 3) == 5, lambda: fib(15) == 610, lambda: sorted([3, 1, 2]) == [1, 2, 3], lambda: "".join(reversed("abc")) == "cba"]
failed = [i for i, t in enumerate(tests) if not t()]
print(f"{len(tests) - len(failed)} passed, {len(failed)} failed")
raise SystemExit(1 if failed else 0)
`;
const NODE_TEST = `
const add = (a, b) => a + b;
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));
const tests = [() => add(2, 3) === 5, () => fib(15) === 610, () => [3, 1, 2].sort().join() === '1,2,3', () => 'abc'.split('').reverse().join('') === 'cba'];
const failed = tests.filter((t) => !t());
console.log(tests.length - failed.length + ' passed, ' + failed.length + ' failed');
process.exit(failed.length ? 1 : 0);
`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

/**
 * The floor's CPU weight: sandbox groups weigh 1024 × vCPUs against the host's other tasks
 * (see cgroup.ts), so on a busy host a plain process would lose CPU to them and the ratio
 * would flatter the sandbox. Plain runs are therefore moved (right after spawn) into a
 * group of the same weight, CPU controller only: no memory or pids limits, no isolation.
 */
let floorCpuDir: string | undefined;
function floorGroup(cpus: number): void {
  const cg = SandboxCgroup.create(`${ownerTag()}.bench-floor`, { memoryMb: 1 << 20, cpus: 64, pids: 1_000_000 });
  floorCpuDir = cg.dirs.find((d) => /\/cpu(,cpuacct)?\//.test(d)) ?? (cg.mode === 'v2' ? cg.dirs[0] : undefined);
  if (floorCpuDir) {
    const v1 = cg.mode === 'v1';
    writeFileSync(path.join(floorCpuDir, v1 ? 'cpu.shares' : 'cpu.weight'), String(v1 ? Math.round(1024 * cpus) : Math.round(100 * cpus)));
  }
  floorCleanup = () => cg.destroy();
}
let floorCleanup = () => undefined as void;

function plain(cmd: string, args: string[], cwd: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    // the same clean environment the sandbox gets (no NODE_OPTIONS from tsx, no pyenv shims)
    const c = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: sandboxEnv({ HOME: cwd, TMPDIR: '/tmp' }) as unknown as NodeJS.ProcessEnv });
    if (floorCpuDir && c.pid) {
      try {
        writeFileSync(path.join(floorCpuDir, 'cgroup.procs'), String(c.pid));
      } catch {
        /* already exited */
      }
    }
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${cmd} exited ${code}`))));
  });
}

async function timed(sb: Sandbox, cmd: string[]): Promise<number> {
  const t0 = performance.now();
  const r = await sb.exec(cmd);
  if (r.status !== 'ok') throw new Error(`${cmd.join(' ')} in sandbox: ${r.status} ${r.stderr}${r.error ?? ''}`);
  return performance.now() - t0;
}

/** The launcher's own resources (a leak there would grow with every cold start). */
function launcherCounters(): { pid: number; fds: number; threads: number; rssKb: number } | undefined {
  const pid = sharedLauncher(envStoreDir(), runtimeOptions(settings()))?.pid;
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { pid, fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads'), rssKb: field('VmRSS') };
  } catch {
    return undefined;
  }
}

/** Every process below this one: the launcher, bwraps and supervisors are grandchildren. */
function descendants(): number {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const st = readFileSync(`/proc/${p}/stat`, 'utf8');
      parent.set(Number(p), Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  let n = 0;
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        n++;
        break;
      }
    }
  }
  return n;
}

function hostCounters(dataDir: string) {
  const children = descendants();
  (globalThis as { gc?: () => void }).gc?.();
  return {
    heapMb: process.memoryUsage().heapUsed / 1e6,
    rssMb: process.memoryUsage().rss / 1e6,
    fds: readdirSync('/proc/self/fd').length,
    children,
    sandboxDirs: readdirSync(path.join(dataDir, 'sandboxes')).length,
  };
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '40' },
      'leak-execs': { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '1,2,4,8' },
      runtime: { type: 'string', default: 'bwrap' },
      json: { type: 'boolean' },
    },
  });
  const runs = Number(values.runs);
  const leakExecs = Number(values['leak-execs']);
  const levels = values.concurrency!.split(',').map(Number);
  const runtime = values.runtime!;
  // any other runtime is also measured against bwrap, interleaved in the same run
  const baseline = runtime === 'bwrap' ? undefined : 'bwrap';
  // microvm: the issue's cold target is for KVM (≤ 250 ms); under TCG only the warm acquire has one (≤ 50 ms)
  const targets =
    runtime === 'gvisor'
      ? { coldP50: 150, warmVsBwrap: 1.5 }
      : runtime === 'microvm'
        ? { coldP50: 250, warmVsBwrap: undefined, acquireP50: 50 }
        : { coldP50: 15, warmVsBwrap: undefined };
  const dataDir = mkdtempSync('/tmp/crucible-bench-');
  chmodSync(dataDir, 0o755);
  const hostDir = mkdtempSync('/tmp/crucible-bench-host-');
  writeFileSync(path.join(hostDir, 'test.py'), PY_TEST);
  writeFileSync(path.join(hostDir, 'test.js'), NODE_TEST);
  ensureDefaultEnvironment(envStoreDir());
  // generous capacity so the concurrency sweep is about speed, not admission
  const manager = new SandboxManager({
    dataDir,
    storeDir: envStoreDir(),
    runtime: runtimeOptions(settings()),
    capacity: { cpus: 64, memoryMb: 1 << 20, diskMb: 1 << 20 },
    maxIdlePerKey: 16,
  });
  // the default quota's 2 vCPUs: at 1 vCPU, CFS throttling alone adds ~8 ms to a Python start here
  const limits = { cpus: 2, memoryMb: 512, diskMb: 256, timeoutMs: 30_000 };
  floorGroup(limits.cpus);
  const os = await import('node:os');
  const warmMode =
    runtime === 'bwrap' && runtimeOptions(settings()).supervisor
      ? 'supervisor (one bwrap per sandbox)'
      : runtime === 'gvisor' && runtimeOptions(settings()).supervisor
        ? 'supervisor (one runsc container per sandbox)'
        : runtime === 'microvm'
          ? 'supervisor (one booted microVM per sandbox)'
          : 'one runtime start per exec';
  const rt = manager.runtime(runtime);
  const gvisor = rt instanceof GvisorRuntime ? rt.details() : undefined;
  const microvm = rt instanceof MicrovmRuntime ? rt.details() : undefined;
  // the launcher does the cold start's mount, environment check and bwrap fork (launcher.c)
  const launcher = sharedLauncher(envStoreDir(), runtimeOptions(settings()))
    ? 'launcher (mount, env check, fork in launcher.c)'
    : `no launcher (${launcherUnavailable() ?? 'CRUCIBLE_SANDBOX_LAUNCHER=0'}): Node mounts, checks and spawns`;
  const out: Record<string, unknown> = {
    runtime,
    runs,
    execMode: warmMode,
    ...(gvisor ? { gvisor: { version: gvisor.version, platform: gvisor.platform } } : {}),
    ...(microvm ? { microvm: { version: microvm.version, kernel: microvm.kernel, accel: microvm.accel, accels: microvm.accels } } : {}),
    coldPath: launcher,
    host: { cpus: os.availableParallelism(), loadavgAtStart: os.loadavg() },
  };
  const log = (s: string) => !values.json && console.log(s);
  // the ratios compare wall times, so a host busy with other work skews them: say how busy it was
  log(`plain runs: ${floorCpuDir ? `in a CPU-only cgroup of the sandbox's weight (${floorCpuDir})` : 'no cgroup (none available)'}`);
  log(`${runtime}, exec mode: ${warmMode}; cold path: ${launcher}`);
  if (gvisor) log(`gVisor: runsc ${gvisor.version}, platform ${gvisor.platform}`);
  if (microvm)
    log(
      `microVM: ${microvm.version}, guest kernel ${microvm.kernel}, accelerator ${microvm.accel}${microvm.accel === 'tcg' ? ` (kvm: ${microvm.accels[0]?.reason})` : ''}`,
    );
  log(
    `host load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.availableParallelism()} CPUs`,
  );
  try {
    // cold start: a brand-new sandbox (dirs, scratch mount, cgroup, env check) running `true`
    const cold: number[] = [];
    const coldFloor: number[] = [];
    const coldBase: number[] = [];
    // warm-up not counted: the first start in a process also loads the manifest baseline,
    // compiles the seccomp filter and probes the cgroup layout (about 1 s here)
    for (const r of baseline ? [runtime, baseline] : [runtime]) {
      for (let i = 0; i < 3; i++) {
        const s = await manager.acquire({ runtime: r, limits });
        await timed(s, ['true']);
        await manager.destroy(s);
      }
    }
    const launcherBefore = launcherCounters();
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const sb = await manager.acquire({ runtime, limits: { ...limits, memoryMb: 512 + (i % 2) } });
      await timed(sb, ['true']);
      cold.push(performance.now() - t0);
      await manager.destroy(sb);
      coldFloor.push(await plain('/usr/bin/true', [], hostDir));
      if (baseline) {
        const b0 = performance.now();
        const b = await manager.acquire({ runtime: baseline, limits: { ...limits, memoryMb: 512 + (i % 2) } });
        await timed(b, ['true']);
        coldBase.push(performance.now() - b0);
        await manager.destroy(b);
      }
    }
    out.coldStartTrue = {
      p50: pct(cold, 50),
      p99: pct(cold, 99),
      spawnP50: pct(coldFloor, 50),
      spawnP99: pct(coldFloor, 99),
      ...(baseline ? { [`${baseline}P50`]: pct(coldBase, 50), [`${baseline}P99`]: pct(coldBase, 99) } : {}),
    };
    log(
      `cold start of \`true\`        p50 ${fmt(pct(cold, 50))} ms  p99 ${fmt(pct(cold, 99))} ms   (plain spawn p50 ${fmt(pct(coldFloor, 50))} ms, p99 ${fmt(pct(coldFloor, 99))} ms` +
        `${baseline ? `; ${baseline} p50 ${fmt(pct(coldBase, 50))} ms, p99 ${fmt(pct(coldBase, 99))} ms` : ''})  target p50 ≤ ${targets.coldP50} ms`,
    );
    const launcherAfter = launcherCounters();
    if (launcherBefore && launcherAfter) {
      out.launcherAfterColdStarts = { before: launcherBefore, after: launcherAfter };
      log(
        `launcher over ${runs} cold starts: fds ${launcherBefore.fds} → ${launcherAfter.fds}, threads ${launcherBefore.threads} → ${launcherAfter.threads}, ` +
          `RSS ${launcherBefore.rssKb} → ${launcherAfter.rssKb} KB${launcherBefore.pid === launcherAfter.pid ? '' : ' (it was restarted meanwhile)'}`,
      );
    }

    // warm acquire from the pool (reset happened at release)
    await manager.prewarm({ runtime, limits }, 1);
    const acq: number[] = [];
    for (let i = 0; i < runs * 5; i++) {
      const t0 = performance.now();
      const sb = await manager.acquire({ runtime, limits });
      acq.push(performance.now() - t0);
      await manager.release(sb);
    }
    out.warmAcquire = { p50: pct(acq, 50), p99: pct(acq, 99) };
    log(
      `warm acquire                  p50 ${fmt(pct(acq, 50))} ms  p99 ${fmt(pct(acq, 99))} ms   target p50 ≤ ${'acquireP50' in targets ? targets.acquireP50 : 2} ms`,
    );

    // warm exec of `true` and of the two test programs, vs plain spawn, interleaved
    const programs: [string, string[], string[]][] = [
      ['true', ['true'], ['/usr/bin/true']],
      ['python test', ['python3', '/work/test.py'], ['/usr/bin/python3', path.join(hostDir, 'test.py')]],
      ['node test', ['node', '/work/test.js'], ['/usr/bin/node', path.join(hostDir, 'test.js')]],
    ];
    const sb = await manager.acquire({ runtime, limits });
    const base = baseline ? await manager.acquire({ runtime: baseline, limits }) : undefined;
    for (const s of base ? [sb, base] : [sb]) {
      s.putFile('/work/test.py', PY_TEST);
      s.putFile('/work/test.js', NODE_TEST);
    }
    const warm: Record<string, unknown> = {};
    for (const [name, inBox, onHost] of programs) {
      const a: number[] = [];
      const b: number[] = [];
      const c: number[] = [];
      for (let i = 0; i < runs; i++) {
        a.push(await timed(sb, inBox));
        b.push(await plain(onHost[0]!, onHost.slice(1), hostDir));
        if (base) c.push(await timed(base, inBox));
      }
      const ratio = pct(a, 50) / pct(b, 50);
      const vsBase = base ? pct(a, 50) / pct(c, 50) : undefined;
      warm[name] = {
        p50: pct(a, 50),
        p99: pct(a, 99),
        spawnP50: pct(b, 50),
        spawnP99: pct(b, 99),
        ratio,
        ...(base ? { [`${baseline}P50`]: pct(c, 50), [`${baseline}P99`]: pct(c, 99), [`vs${baseline}`]: vsBase } : {}),
      };
      const target = vsBase !== undefined && targets.warmVsBwrap ? `  target ≤ ${targets.warmVsBwrap}× ${baseline}` : name === 'true' ? '' : '  target ≤ 1.10×';
      log(
        `warm exec ${name.padEnd(12)}        p50 ${fmt(pct(a, 50))} ms  p99 ${fmt(pct(a, 99))} ms   (plain p50 ${fmt(pct(b, 50))} ms)  ratio ${ratio.toFixed(2)}×` +
          `${base ? `; ${baseline} p50 ${fmt(pct(c, 50))} ms, ${vsBase!.toFixed(2)}× ${baseline}'s` : ''}${target}`,
      );
    }
    out.warmExec = warm;
    await manager.release(sb);
    if (base) await manager.release(base);

    // the same programs as one episode start each: acquire (warm; its environment check) →
    // put the file → exec → release (reset), against the same plain spawn
    const cycles: Record<string, unknown> = {};
    for (const [name, inBox, onHost] of programs.slice(1)) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const s = await manager.acquire({ runtime, limits });
        s.putFile(inBox[1]!, inBox[1]!.endsWith('.py') ? PY_TEST : NODE_TEST);
        await timed(s, inBox);
        await manager.release(s);
        a.push(performance.now() - t0);
        b.push(await plain(onHost[0]!, onHost.slice(1), hostDir));
      }
      const ratio = pct(a, 50) / pct(b, 50);
      cycles[name] = { p50: pct(a, 50), p99: pct(a, 99), spawnP50: pct(b, 50), ratio };
      log(
        `acquire+exec+release ${name.padEnd(12)} p50 ${fmt(pct(a, 50))} ms  p99 ${fmt(pct(a, 99))} ms   (plain p50 ${fmt(pct(b, 50))} ms)  ratio ${ratio.toFixed(2)}×`,
      );
    }
    out.cycle = cycles;

    // throughput at concurrency 1, 2, 4, 8: one warm sandbox per lane
    const tput: Record<string, unknown>[] = [];
    for (const [name, inBox, onHost] of programs.slice(1)) {
      for (const c of levels) {
        const per = Math.max(2, Math.ceil(runs / 2));
        const lanes = await Promise.all(
          Array.from({ length: c }, async () => {
            const s = await manager.acquire({ runtime, limits });
            s.putFile('/work/test.py', PY_TEST);
            s.putFile('/work/test.js', NODE_TEST);
            return s;
          }),
        );
        let t0 = performance.now();
        await Promise.all(
          lanes.map(async (s) => {
            for (let i = 0; i < per; i++) await timed(s, inBox);
          }),
        );
        const boxed = (c * per) / ((performance.now() - t0) / 1000);
        for (const s of lanes) await manager.release(s);
        t0 = performance.now();
        await Promise.all(
          lanes.map(async () => {
            for (let i = 0; i < per; i++) await plain(onHost[0]!, onHost.slice(1), hostDir);
          }),
        );
        const floor = (c * per) / ((performance.now() - t0) / 1000);
        tput.push({ program: name, concurrency: c, sandboxPerSec: boxed, spawnPerSec: floor, ratio: floor / boxed });
        log(
          `${name.padEnd(12)} concurrency ${c}: ${boxed.toFixed(1)} exec/s sandboxed, ${floor.toFixed(1)} exec/s plain (overhead ${(floor / boxed).toFixed(2)}×)`,
        );
      }
    }
    out.throughput = tput;

    // leak check: many consecutive execs through the manager (acquire → exec → release)
    if (leakExecs > 0) {
      for (let i = 0; i < 50; i++) await manager.exec({ runtime, limits }, ['true']);
      const before = hostCounters(dataDir);
      const t0 = performance.now();
      for (let i = 0; i < leakExecs; i++) {
        const r = await manager.exec({ runtime, limits }, ['true']);
        if (r.status !== 'ok') throw new Error(`exec ${i}: ${r.status} ${r.error ?? r.stderr}`);
      }
      const secs = (performance.now() - t0) / 1000;
      const after = hostCounters(dataDir);
      const ok = after.fds <= before.fds && after.children <= before.children && after.sandboxDirs <= before.sandboxDirs && after.heapMb - before.heapMb < 20;
      out.leak = { execs: leakExecs, seconds: secs, before, after, ok };
      log(
        `${leakExecs} consecutive execs in ${secs.toFixed(1)} s (${(leakExecs / secs).toFixed(0)}/s): heap ${fmt(before.heapMb)} → ${fmt(after.heapMb)} MB, ` +
          `rss ${fmt(before.rssMb)} → ${fmt(after.rssMb)} MB, fds ${before.fds} → ${after.fds}, descendant processes ${before.children} → ${after.children}, ` +
          `sandbox dirs ${before.sandboxDirs} → ${after.sandboxDirs}: ${ok ? 'no growth' : 'GROWTH'}`,
      );
    }
    (out.host as Record<string, unknown>).loadavgAtEnd = os.loadavg();
    log(
      `host load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    if (values.json) console.log(JSON.stringify(out, null, 2));
    return 0;
  } finally {
    floorCleanup();
    await manager.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(hostDir, { recursive: true, force: true });
  }
}
