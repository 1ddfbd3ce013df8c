import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvironment } from '../env/env-build';
import { SandboxManager } from '../pool/manager';
import { TEST_STORE, installedRuntimes, testManager } from '../sandbox.testkit';
import { expectSweptClean, killWorker, withCrashWorker } from './crash.testkit';
import { GvisorRuntime, GvisorSandbox } from './gvisor';
import { builtInPlatforms } from './gvisor-platform';
import { runtimeOptions } from './options';
import { runtimeByName } from './runtime-by-name';
import { settings } from '@/core/settings';

/**
 * The gVisor runtime for real (runsc, its sentry and gofer, real cgroups): warm sandboxes
 * that boot once and exec through the supervisor, the platform in every result, runsc's own
 * failures as sandbox_error, reset between users, host paths, and a worker crash.
 * The hostile-code set runs on gVisor in hostile.test.ts.
 */
const [rt] = installedRuntimes(['gvisor']);
const limits = { memoryMb: 256, diskMb: 16, timeoutMs: 20_000 };
const repo = path.resolve(import.meta.dirname, '../../..');

describe('runsc platforms', () => {
  it("reads the platforms a runsc build has from its -platform flag's help", () => {
    const help = '  -platform string\n    \tspecifies which platform to use: ptrace (default), kvm. (default "ptrace")\n';
    expect(builtInPlatforms(help)).toEqual(['kvm', 'ptrace']);
    expect(builtInPlatforms('  -platform string\n    \tspecifies which platform to use: systrap (default), ptrace, kvm.')).toEqual([
      'kvm',
      'systrap',
      'ptrace',
    ]);
    expect(builtInPlatforms('no such flag')).toEqual([]);
  });

  it('every runsc name is the gvisor runtime', () => {
    for (const name of ['gvisor', 'oci:runsc', 'runsc', 'oci:gvisor']) expect(runtimeByName(name, runtimeOptions(settings())).name, name).toBe('gvisor');
    expect(runtimeByName('oci', { ...runtimeOptions(settings()), ociRuntime: 'runsc' })).toBeInstanceOf(GvisorRuntime);
  });
});

describe.skipIf(!rt?.available)(`gvisor sandboxes${rt?.available ? '' : ` (skipped: ${rt?.reason})`}`, () => {
  let manager: SandboxManager;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  let platform: string;
  beforeAll(() => {
    ({ manager, dataDir, cleanup } = testManager('gvisor'));
    const d = (manager.runtime('gvisor') as GvisorRuntime).details();
    platform = d.platform!;
  });
  afterAll(async () => cleanup?.());

  it('the platform that runs here is detected once, with why the others do not, and named in every result', async () => {
    const d = (manager.runtime('gvisor') as GvisorRuntime).details();
    expect(d.version).toMatch(/\d/);
    expect(d.platforms.map((p) => p.platform)).toEqual(['kvm', 'systrap', 'ptrace']);
    expect(d.platforms.filter((p) => p.works).map((p) => p.platform)).toEqual([d.platform]);
    for (const p of d.platforms.filter((x) => !x.works)) expect(p.reason, p.platform).toBeTruthy();
    const r = await manager.exec({ runtime: 'gvisor', limits }, ['sh', '-c', 'echo hi; exit 3']);
    expect(r).toMatchObject({ status: 'nonzero_exit', exitCode: 3, stdout: 'hi\n', runtime: 'gvisor', platform });
  });

  it('a warm sandbox boots gVisor once: execs and a release/acquire reuse the same container, with the supervisor as PID 1', async () => {
    const sb = (await manager.acquire({ runtime: 'gvisor', limits: { ...limits, diskMb: 17 } })) as GvisorSandbox;
    expect(sb.warm).toBe(true);
    const first = await sb.exec(['cat', '/proc/1/cmdline']);
    expect(first.status, first.error).toBe('ok');
    expect(first.stdout).toContain('crucible-supervisor');
    const boot = sb.residentPids().sort();
    expect(boot.length).toBeGreaterThanOrEqual(3); // runsc, its sentry and gofer at least
    for (const cmd of [
      ['python3', '-c', 'print(6*7)'],
      ['node', '-e', 'console.log(6*7)'],
    ]) {
      const r = await sb.exec(cmd);
      expect(r, cmd[0]).toMatchObject({ status: 'ok', stdout: '42\n', platform });
    }
    // the command runs as uid 1000 with no capabilities; stdin, cwd and env reach it
    const who = await sb.exec(['sh', '-c', 'id -u; grep CapEff /proc/self/status; pwd; echo $X; cat'], { cwd: '/tmp', env: { X: 'y' }, stdin: 'in' });
    expect(who.stdout).toBe('1000\nCapEff:\t0000000000000000\n/tmp\ny\nin');
    await manager.release(sb);
    const again = (await manager.acquire({ runtime: 'gvisor', limits: { ...limits, diskMb: 17 } })) as GvisorSandbox;
    try {
      expect(again).toBe(sb);
      expect((await again.exec(['true'])).status).toBe('ok');
      // the same gVisor processes: nothing was booted again
      expect(boot.every((p) => again.residentPids().includes(p))).toBe(true);
    } finally {
      await manager.release(again);
    }
  });

  it('sandboxed code can neither kill, stop nor read the supervisor', async () => {
    const sb = await manager.acquire({ runtime: 'gvisor', limits: { ...limits, diskMb: 18 } });
    try {
      const r = await sb.exec([
        'sh',
        '-c',
        'kill -9 1; echo kill=$?; kill -STOP 1; echo stop=$?; cat /proc/1/fd/0 </dev/null >/dev/null 2>&1; echo fd=$?; ls /proc/1/fd >/dev/null 2>&1; echo ls=$?',
      ]);
      expect(r.stdout).toMatch(/^kill=1\nstop=1\nfd=1\nls=[12]\n$/);
      const after = await sb.exec(['echo', 'still here']);
      expect(after).toMatchObject({ status: 'ok', stdout: 'still here\n' });
    } finally {
      await manager.release(sb);
    }
  });

  it('reset between users wipes /work, /tmp and /dev/shm; SysV IPC it cannot list restarts the sandbox', async () => {
    const spec = { runtime: 'gvisor', limits: { ...limits, diskMb: 19 } };
    const ipcCount = [
      'python3',
      '-c',
      'import ctypes, struct\nb = ctypes.create_string_buffer(128)\nctypes.CDLL(None).shmctl(0, 14, b)\nprint(struct.unpack_from("i", b.raw)[0])',
    ];
    const sb = await manager.acquire(spec);
    const w = await sb.exec(['sh', '-c', 'echo a > /work/a; echo b > /tmp/b; echo c > /dev/shm/c; echo done']);
    expect(w.stdout).toBe('done\n');
    const pids = sb.residentPids();
    await manager.release(sb);
    const sb2 = await manager.acquire(spec);
    expect(sb2).toBe(sb);
    const seen = await sb2.exec(['sh', '-c', 'cat /work/a /tmp/b /dev/shm/c 2>&1 | grep -c "No such file"']);
    expect(seen.stdout).toBe('3\n');
    expect(sb2.residentPids()).toEqual(expect.arrayContaining(pids)); // no restart for that
    const made = await sb2.exec(['python3', '-c', 'import ctypes\nprint(ctypes.CDLL(None).shmget(0, 4096, 0o1000 | 0o600) >= 0)']);
    expect(made.stdout).toBe('True\n');
    expect((await sb2.exec(ipcCount)).stdout).toBe('1\n');
    await manager.release(sb2);
    const sb3 = await manager.acquire(spec);
    try {
      expect((await sb3.exec(ipcCount)).stdout).toBe('0\n');
      expect(pids.some((p) => sb3.residentPids().includes(p))).toBe(false); // a fresh gVisor
    } finally {
      await manager.release(sb3);
    }
  });

  it('a timeout and a memory bomb end the exec as such; the sandbox serves the next exec', async () => {
    const sb = await manager.acquire({ runtime: 'gvisor', limits: { ...limits, diskMb: 20, memoryMb: 160 } });
    try {
      const t = await sb.exec(['sh', '-c', 'sleep 30 & python3 -c "while True: pass"'], { timeoutMs: 800 });
      expect(t).toMatchObject({ status: 'timeout', signal: 'SIGKILL', platform });
      expect(t.durationMs).toBeLessThan(3000);
      expect((await sb.exec(['sh', '-c', 'set -- /proc/[0-9]*; echo $#'])).stdout).toBe('2\n'); // supervisor and this shell
      const m = await sb.exec(['python3', '-c', 'x = bytearray(1024 * 1024 * 1024)']);
      expect(m.status).toBe('memory_limit');
      expect((await sb.exec(['echo', 'ok'])).stdout).toBe('ok\n');
    } finally {
      await manager.release(sb);
    }
  });

  it("the pids limit holds inside gVisor's kernel (RLIMIT_NPROC), though the host group leaves room for gVisor's own threads", async () => {
    const code = [
      'import os, time',
      'made, refused = 0, None',
      'for i in range(40):',
      '  try:',
      '    if os.fork() == 0:',
      '      time.sleep(5); os._exit(0)',
      '    made += 1',
      '  except OSError as e:',
      '    refused = e.errno; break',
      'print(made, refused)',
    ].join('\n');
    const r = await manager.exec({ runtime: 'gvisor', limits: { ...limits, pids: 16 } }, ['python3', '-c', code]);
    expect(r.status, r.error ?? r.stderr).toBe('ok');
    const [made, refused] = r.stdout.trim().split(' ');
    // Linux would refuse the 16th child (this process counts); gVisor 20221219 the 17th
    expect(Number(made)).toBeLessThanOrEqual(16);
    expect(refused).toBe('11'); // EAGAIN
  });

  it('a command exiting 128 (the code runsc uses for its own failures) and printing runsc-like errors is the command’s nonzero_exit', async () => {
    const spoof = ['sh', '-c', 'echo out; echo "W0101 00:00:00.0 1 util.go:64] FATAL ERROR: spoofed" >&2; exit 128'];
    const r = await manager.exec({ runtime: 'gvisor', limits }, spoof);
    expect(r).toMatchObject({ status: 'nonzero_exit', exitCode: 128, stdout: 'out\n' });
    const t = testManager('gvisor-spoof', { runtime: { ...runtimeOptions(settings()), supervisor: false } });
    try {
      expect(await t.manager.exec({ runtime: 'gvisor', limits }, spoof)).toMatchObject({ status: 'nonzero_exit', exitCode: 128, stdout: 'out\n' });
    } finally {
      await t.cleanup();
    }
  });

  it('mountinfo shows no host path; a store that replaced the rootfs gives env_mismatch, then a fresh sandbox', async () => {
    const r = await manager.exec({ runtime: 'gvisor', limits }, ['sh', '-c', 'cat /proc/self/mountinfo /proc/1/mountinfo; cat /proc/self/cgroup']);
    expect(r.status, r.error).toBe('ok');
    const env = manager.environment('default');
    for (const p of [dataDir, TEST_STORE, env.dir, env.hash.replace('sha256:', ''), repo, '/sandboxes/', 'scratch/']) expect(r.stdout, p).not.toContain(p);

    const store = path.join(dataDir, 'store');
    mkdirSync(store, { recursive: true, mode: 0o755 });
    const pinned = buildEnvironment({ name: 'gvpin', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], files: { '/etc/motd': 'hello\n' } }, store);
    const t = testManager('gvisor-pin', { storeDir: store });
    try {
      const sb = await t.manager.acquire({ runtime: 'gvisor', env: 'gvpin', limits });
      try {
        expect((await sb.exec(['cat', '/etc/motd'])).stdout).toBe('hello\n');
        cpSync(pinned.rootfs, `${pinned.rootfs}.new`, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
        renameSync(pinned.rootfs, `${pinned.rootfs}.old`);
        renameSync(`${pinned.rootfs}.new`, pinned.rootfs);
        const m = await sb.exec(['cat', '/etc/motd']);
        expect(m.status).toBe('env_mismatch');
        expect(m.error).toMatch(/was replaced \(or removed\) after this sandbox mounted it/);
      } finally {
        await t.manager.destroy(sb);
        rmSync(`${pinned.rootfs}.old`, { recursive: true, force: true });
      }
      const fresh = await t.manager.exec({ runtime: 'gvisor', env: 'gvpin', limits }, ['cat', '/etc/motd']);
      expect(fresh.status, fresh.error).toBe('ok');
    } finally {
      await t.cleanup();
    }
  });

  it('one runsc per exec without the supervisor: same results, platform included', async () => {
    const t = testManager('gvisor-per-exec', { runtime: { ...runtimeOptions(settings()), supervisor: false } });
    try {
      const sb = (await t.manager.acquire({ runtime: 'gvisor', limits })) as GvisorSandbox;
      try {
        expect(sb.warm).toBe(false);
        expect(await sb.exec(['sh', '-c', 'id -u; exit 5'])).toMatchObject({ status: 'nonzero_exit', exitCode: 5, stdout: '1000\n', platform });
        expect(await sb.exec(['sleep', '30'], { timeoutMs: 800 })).toMatchObject({ status: 'timeout' });
        expect(sb.cgroup.pids()).toEqual([]); // runsc and all of gVisor are gone after each exec
      } finally {
        await t.manager.release(sb);
      }
    } finally {
      await t.cleanup();
    }
  });

  // runsc failing at its own start is hard to cause for real on demand, so this wraps the
  // real runsc (a fake at that boundary): `run` gets the kvm platform with a device that
  // does not exist, and runsc cannot create the sandbox, as with any bad configuration
  for (const warm of [true, false]) {
    it(`runsc's own failure is a sandbox_error with its message, never the command's exit (${warm ? 'warm' : 'per exec'}; fake: a runsc wrapper that breaks \`run\`)`, async () => {
      const real = spawnSync('sh', ['-c', 'command -v "$0"', runtimeOptions(settings()).runsc], { encoding: 'utf8' }).stdout.trim();
      const wrapper = path.join(dataDir, `runsc-broken-${warm}`);
      writeFileSync(
        wrapper,
        `#!/bin/bash\nargs=()\nfor a in "$@"; do [ "$a" = run ] && args+=(--platform=kvm --platform_device_path=/nonexistent/kvm); args+=("$a"); done\nexec ${real} "\${args[@]}"\n`,
      );
      chmodSync(wrapper, 0o755);
      const t = testManager(`gvisor-broken-${warm}`, { runtime: { ...runtimeOptions(settings()), runsc: wrapper, supervisor: warm } });
      try {
        const r = await t.manager.exec({ runtime: 'gvisor', limits }, ['sh', '-c', 'echo never; exit 3']);
        expect(r.status).toBe('sandbox_error');
        expect(r.exitCode).toBeNull();
        expect(r.stdout).toBe('');
        expect(r.error).toMatch(/gVisor \(runsc\) failed.*cannot create sandbox.*\/nonexistent\/kvm/);
        expect(r.platform).toBe(platform);
      } finally {
        await t.cleanup();
      }
    });
  }

  it('a worker kill -9ed mid-exec takes its gVisor sandbox with it; the next start leaves nothing behind', async () => {
    await withCrashWorker('gvisor-crash-worker.ts', 30_000, async ({ child, info, dataDir }) => {
      expect(info.pids.length).toBeGreaterThanOrEqual(3);
      // a wedged gVisor kernel: stopped, its supervisor cannot notice the worker's pipes closing
      const sentries = info.pids.filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('runsc-sandbox\0');
        } catch {
          return false;
        }
      });
      expect(sentries.length).toBeGreaterThan(0);
      for (const p of sentries) process.kill(p, 'SIGSTOP');
      // runsc dies with the worker (parent-death signal) and its sandbox with runsc, before any sweep,
      // even with gVisor's kernel wedged
      await killWorker(child, info);
      await expectSweptClean(dataDir, info);
    });
  });
});
