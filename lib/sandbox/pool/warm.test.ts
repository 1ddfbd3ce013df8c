import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvironment } from '../env/env-build';
import { BwrapSandbox } from '../runtimes/bwrap';
import { SandboxManager } from './manager';
import { supervisorUnavailable } from '../runtimes/supervisor';
import { testDataDir, testManager } from '../sandbox.testkit';
import type { LimitsInput } from '../types';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * Warm bwrap sandboxes: one bwrap per sandbox with the supervisor as its PID 1, one fork
 * per exec. Real bwrap, cgroups and the compiled supervisor; hostile cases in hostile.test.ts
 * run through the same path.
 */
const small: LimitsInput = { memoryMb: 128, diskMb: 16, cpus: 1, timeoutMs: 5000 };

describe('warm bwrap sandboxes (supervisor as PID 1)', () => {
  let t: ReturnType<typeof testManager>;
  beforeAll(() => {
    t = testManager('warm', { maxIdlePerKey: 2 });
  });
  afterAll(async () => t?.cleanup());

  it('runs every exec of a sandbox under one supervisor, with per-exec stdin, cwd, env and exit status', async () => {
    const sb = await t.manager.acquire({ limits: small });
    try {
      expect(sb).toBeInstanceOf(BwrapSandbox);
      expect((sb as BwrapSandbox).warm, supervisorUnavailable()).toBe(true);
      const stdin = 'x'.repeat(300_000); // larger than a pipe buffer
      const a = await sb.exec(['sh', '-c', 'wc -c; pwd; echo "$FOO"; echo $$'], { stdin, cwd: '/tmp', env: { FOO: 'bar' } });
      expect(a.status).toBe('ok');
      expect(a.stdout.split('\n').slice(0, 3)).toEqual(['300000', '/tmp', 'bar']);
      const resident = sb.residentPids();
      expect(resident).toHaveLength(2); // bwrap and the supervisor
      const b = await sb.exec(['sh', '-c', 'echo oops >&2; exit 7']);
      expect(b).toMatchObject({ status: 'nonzero_exit', exitCode: 7, stderr: 'oops\n' });
      const c = await sb.exec(['sh', '-c', 'kill -TERM $$']);
      expect(c).toMatchObject({ status: 'killed', signal: 'SIGTERM', exitCode: null });
      const d = await sb.exec(['no-such-program']);
      expect(d.status).toBe('sandbox_error');
      expect(d.error).toMatch(/execvp no-such-program: No such file or directory/);
      expect(sb.residentPids()).toEqual(resident); // still the same supervisor
    } finally {
      await t.manager.release(sb);
    }
  });

  it('sandboxed code can neither kill, stop nor read the supervisor', async () => {
    const sb = await t.manager.acquire({ limits: small });
    try {
      const resident = sb.residentPids();
      const r = await sb.exec(['sh', '-c', 'kill -9 -1; kill -STOP 1; kill -9 1; ls /proc/1/fd 2>&1; cat /proc/1/environ 2>&1; echo survived']);
      expect(r.status).toBe('ok');
      expect(r.stdout).toMatch(/Permission denied[\s\S]*Permission denied[\s\S]*survived/);
      const after = await sb.exec(['echo', 'alive']);
      expect(after.stdout).toBe('alive\n');
      expect(sb.residentPids()).toEqual(resident);
    } finally {
      await t.manager.release(sb);
    }
  });

  it('a supervisor killed from the host fails that exec clearly; the next exec gets a fresh one', async () => {
    const sb = await t.manager.acquire({ limits: small });
    try {
      await sb.exec(['true']);
      const resident = sb.residentPids();
      const running = sb.exec(['sleep', '5']);
      await new Promise((r) => setTimeout(r, 200));
      process.kill(resident[1]!, 'SIGKILL'); // the supervisor (bwrap, its parent, reaps it and exits)
      const r = await running;
      expect(r.status).toBe('sandbox_error');
      expect(r.error).toMatch(/supervisor exited/);
      expect(r.durationMs).toBeLessThan(4000);
      const next = await sb.exec(['echo', 'back']);
      expect(next).toMatchObject({ status: 'ok', stdout: 'back\n' });
      expect(sb.residentPids()).not.toEqual(resident);
    } finally {
      await t.manager.release(sb);
    }
  });

  it('a supervisor that cannot answer after a timeout is torn down: the exec ends as timeout, the next gets a fresh one', async () => {
    const sb = await t.manager.acquire({ limits: small });
    try {
      await sb.exec(['true']);
      const resident = sb.residentPids();
      const running = sb.exec(['sleep', '30'], { timeoutMs: 500 });
      await new Promise((r) => setTimeout(r, 200));
      process.kill(resident[1]!, 'SIGSTOP'); // frozen: it can neither kill its namespace nor report
      const r = await running;
      expect(r.status).toBe('timeout');
      expect(r.durationMs).toBeLessThan(5000); // 0.5 s timeout + the 2 s grace, not the sleep's 30 s
      const next = await sb.exec(['echo', 'back']);
      expect(next).toMatchObject({ status: 'ok', stdout: 'back\n' });
      expect(sb.residentPids()).not.toEqual(resident);
    } finally {
      await t.manager.release(sb);
    }
  });

  it('a daemon started by one exec is gone before the next, within one acquisition', async () => {
    const sb = await t.manager.acquire({ limits: small });
    try {
      await sb.exec(['sh', '-c', 'setsid sleep 300 >/dev/null 2>&1 < /dev/null & nohup sleep 301 >/dev/null 2>&1 & echo started']);
      const r = await sb.exec(['sh', '-c', 'ls /proc | grep -E "^[0-9]+$" | sort -n | tr "\\n" " "']);
      // PID 1 (the supervisor), this sh, ls, grep, sort, tr: no sleep left
      const pids = r.stdout.trim().split(' ').map(Number);
      expect(pids[0]).toBe(1);
      expect(pids.length).toBeLessThanOrEqual(6);
      const ps = await sb.exec(['sh', '-c', 'for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null; echo; done']);
      expect(ps.stdout).not.toContain('sleep');
    } finally {
      await t.manager.release(sb);
    }
  });

  it('reset between users wipes /dev/shm, files added to /dev and SysV IPC; a tampered /dev gets a fresh bwrap', async () => {
    const sb = await t.manager.acquire({ limits: small });
    const resident = sb.residentPids();
    const plant = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'print("shmget", libc.shmget(0x1234, 4096, 0o1000 | 0o600) >= 0)',
      'open("/dev/shm/left", "w").write("secret")',
      'open("/dev/planted", "w").write("secret")',
      'print(open("/proc/sysvipc/shm").read().count("\\n") - 1)',
    ].join('\n');
    const r = await sb.exec(['python3', '-c', plant]);
    expect(r.stdout).toBe('shmget True\n1\n');
    await t.manager.release(sb);
    const again = await t.manager.acquire({ limits: small });
    expect(again).toBe(sb);
    const look = await again.exec(['sh', '-c', 'ls -A /dev/shm; ls /dev; wc -l < /proc/sysvipc/shm']);
    expect(look.stdout).not.toContain('left');
    expect(look.stdout).not.toContain('planted');
    expect(look.stdout.trim().endsWith('1')).toBe(true); // the header line only
    expect(again.residentPids()).toEqual(resident); // cleaned in place, same supervisor

    // bwrap's /dev symlinks re-pointed cannot be restored in place: the sandbox restarts
    const swap = await again.exec(['sh', '-c', 'rm /dev/fd && ln -s /tmp /dev/fd && readlink /dev/fd']);
    expect(swap.stdout + swap.stderr).toBe('/tmp\n');
    await t.manager.release(again);
    const fresh = await t.manager.acquire({ limits: small });
    expect(fresh).toBe(sb);
    const check = await fresh.exec(['readlink', '/dev/fd']);
    expect(check.stdout).toBe('/proc/self/fd\n');
    expect(fresh.residentPids()).not.toEqual(resident);
    await t.manager.release(fresh);
  });

  it('released before its first exec, again and again: no supervisor restarts, no zombies charged to the pids cgroup', async () => {
    const sb = await t.manager.acquire({ limits: small }); // its supervisor is still starting
    await t.manager.release(sb);
    for (let i = 0; i < 40; i++) await t.manager.release(await t.manager.acquire({ limits: small }));
    const again = await t.manager.acquire({ limits: small });
    try {
      expect(again).toBe(sb);
      expect((await again.exec(['true'])).status).toBe('ok');
      const counter = again.cgroup.dirs.map((d) => path.join(d, 'pids.current')).find((f) => existsSync(f));
      if (counter) expect(Number(readFileSync(counter, 'utf8'))).toBeLessThanOrEqual(2); // bwrap and the supervisor
    } finally {
      await t.manager.release(again);
    }
  });

  it('POSIX message queues (state that would outlive a reset) are refused', async () => {
    const r = await t.manager.exec({ limits: small }, [
      'python3',
      '-c',
      ['import ctypes', 'rt = ctypes.CDLL(None, use_errno=True)', 'fd = rt.mq_open(b"/q", 0o100 | 2, 0o600, None)', 'print(fd, ctypes.get_errno())'].join('\n'),
    ]);
    expect(r.stdout).toBe('-1 1\n'); // EPERM
  });
});

describe('warm sandboxes and environment tampering', () => {
  const root = testDataDir('warm-env');
  const store = path.join(root, 'store');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a pooled sandbox whose environment was tampered with is refused at its next start (env_mismatch)', async () => {
    mkdirSync(store, { recursive: true, mode: 0o755 });
    const env = buildEnvironment(
      { name: 'tinywarm', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], files: { '/etc/motd': 'hello\n' }, toolchain: ['sh'] },
      store,
    );
    const manager = new SandboxManager({ dataDir: root, storeDir: store, maxIdlePerKey: 1, runtime: runtimeOptions(settings()) });
    try {
      const spec = { env: 'tinywarm', limits: { memoryMb: 64, diskMb: 8, timeoutMs: 5000 } };
      const first = await manager.exec(spec, ['cat', '/etc/motd']);
      expect(first).toMatchObject({ status: 'ok', stdout: 'hello\n' });
      expect(manager.stats().idle).toBe(1); // warm, waiting in the pool
      appendFileSync(path.join(env.rootfs, 'etc/motd'), 'tampered\n');
      const r = await manager.exec(spec, ['cat', '/etc/motd']);
      expect(r.status).toBe('env_mismatch');
      expect(r.stdout).toBe('');
      expect(r.error).toMatch(/modified: \/etc\/motd/);
      expect(r.sandboxId).toBe(first.sandboxId); // it was the pooled one, refused at its start
      expect(manager.stats().idle).toBe(0); // and destroyed, not pooled again
    } finally {
      await manager.close();
    }
  });
});
