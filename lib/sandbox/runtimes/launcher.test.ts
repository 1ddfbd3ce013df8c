import { spawn, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEnvironment, type EnvSpecInput } from '../env/env-build';
import { baselineFor } from '../env/env-verify';
import { sharedLauncher } from './launcher';
import { runtimeOptions } from './options';
import { testDataDir, testManager } from '../sandbox.testkit';
import { settings } from '@/core/settings';

// The launcher (launcher.c) does the fast environment check, the scratch mount and the
// bwrap fork for every cold start. These tests drive the real helper process.
const tiny: EnvSpecInput = { name: 'tiny', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], files: { '/etc/motd': 'hello\n' }, toolchain: ['sh'] };
const root = testDataDir('launcher');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const asRoot = process.getuid?.() === 0;

let n = 0;
function freshEnv() {
  const store = path.join(root, `store-${n++}`);
  mkdirSync(store, { recursive: true });
  const env = buildEnvironment(tiny, store);
  const launcher = sharedLauncher(store, runtimeOptions(settings()));
  if (!launcher) throw new Error('the launcher is unavailable here (gcc and libc6-dev are installed by scripts/system-deps.sh)');
  return { env, launcher, check: () => launcher.check(env.dir, baselineFor(env)), store };
}

describe('launcher: fast environment check', () => {
  const tamperings: [string, (rootfs: string, store: string) => void][] = [
    ['an appended file', (r) => appendFileSync(path.join(r, 'etc/motd'), 'x')],
    [
      'a same-size rewrite with the mtime restored',
      (r) => {
        const f = path.join(r, 'etc/motd');
        const st = statSync(f);
        writeFileSync(f, 'hellO\n');
        utimesSync(f, st.atime, st.mtime);
      },
    ],
    ['an added file', (r) => writeFileSync(path.join(r, 'usr/bin/evil'), '#!/bin/sh\n')],
    ['a removed file', (r) => unlinkSync(path.join(r, 'usr/bin/cat'))],
    ['a renamed file', (r) => renameSync(path.join(r, 'usr/bin/cat'), path.join(r, 'usr/bin/tac'))],
    ['a chmod', (r) => chmodSync(path.join(r, 'usr/bin/dash'), 0o4755)],
    [
      'a write through a hard link outside the environment',
      (r, store) => {
        const outside = path.join(store, 'motd-link');
        linkSync(path.join(r, 'etc/motd'), outside);
        const st = statSync(outside);
        writeFileSync(outside, 'hellO\n');
        utimesSync(outside, st.atime, st.mtime);
      },
    ],
    [
      'a rootfs replaced by an identical-looking copy',
      (r) => {
        renameSync(r, `${r}.orig`);
        cpSync(`${r}.orig`, r, { recursive: true, preserveTimestamps: true });
      },
    ],
  ];
  for (const [what, tamper] of tamperings) {
    it(`catches ${what} on the very next check`, async () => {
      const { env, check, store } = freshEnv();
      expect(await check()).toMatchObject({ ok: true, watched: false }); // first check compares and arms
      expect(await check()).toMatchObject({ ok: true, watched: true }); // then inotify vouches
      tamper(env.rootfs, store);
      expect(await check()).toEqual({ ok: false });
      expect(await check()).toEqual({ ok: false }); // stays refused: nothing re-baselined it
    });
  }

  it.skipIf(!asRoot)('catches a mount over a directory of the rootfs (and it staying there)', async () => {
    const { env, check } = freshEnv();
    expect(await check()).toMatchObject({ ok: true });
    const target = path.join(env.rootfs, 'usr/bin');
    execFileSync('mount', ['-t', 'tmpfs', 'crucible-test-overlay', target]);
    try {
      expect(await check()).toEqual({ ok: false });
    } finally {
      execFileSync('umount', [target]);
    }
    // unmounted again: the same inodes are back, so the comparison passes
    expect(await check()).toMatchObject({ ok: true, watched: false });
  });

  it('an unchanged environment passes, and a touch without content change still fails the fast check', async () => {
    const { env, check } = freshEnv();
    for (let i = 0; i < 5; i++) expect((await check()).ok).toBe(true);
    utimesSync(path.join(env.rootfs, 'etc/motd'), new Date(), new Date());
    expect(await check()).toEqual({ ok: false }); // the caller's full re-hash decides (env-store.test.ts)
  });

  it('a write through a shared mapping (which inotify never reports) is caught within a second', async () => {
    const { env, check } = freshEnv();
    expect(await check()).toMatchObject({ ok: true });
    const f = path.join(env.rootfs, 'etc/motd');
    // python holds the writable mapping (and its fd) open, so not even IN_CLOSE_WRITE fires
    const py = spawn(
      'python3',
      [
        '-c',
        [
          'import mmap, sys, time',
          `f = open(${JSON.stringify(f)}, "r+b")`,
          'm = mmap.mmap(f.fileno(), 0)',
          'm[0:1] = b"J"',
          'm.flush()',
          'print("written", flush=True)',
          'time.sleep(30)',
        ].join('\n'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        py.stdout.on('data', (d: Buffer) => d.toString().includes('written') && resolve());
        py.once('exit', (c) => reject(new Error(`python exited ${c}`)));
      });
      await new Promise((r) => setTimeout(r, 1100));
      expect(await check()).toEqual({ ok: false });
    } finally {
      py.kill('SIGKILL');
    }
  });
});

describe('launcher: sandboxes', () => {
  it('starts sandboxes whose PID 1 is exactly the supervisor; a killed launcher is replaced and its sandboxes fail cleanly', async () => {
    const t = testManager('launcher-sb');
    try {
      const sb = await t.manager.acquire({ limits: { memoryMb: 128, diskMb: 16, timeoutMs: 10_000 } });
      const r = await sb.exec(['cat', '/proc/1/cmdline']);
      expect(r.status).toBe('ok');
      expect(r.stdout).toBe('/proc/self/fd/6\0'); // nothing of the launcher's memory in its argv
      const first = sharedLauncher(path.dirname(t.manager.environment('default').dir), runtimeOptions(settings()))!;
      const pid = first.pid!;
      const resident = sb.residentPids();
      expect(resident.length).toBeGreaterThan(0);
      process.kill(pid, 'SIGKILL');
      // its bwraps ran with --die-with-parent: the sandbox dies with it
      for (let i = 0; i < 100 && (first.alive || resident.some((p) => existsSync(`/proc/${p}`))); i++) await new Promise((r) => setTimeout(r, 50));
      expect(first.alive).toBe(false);
      expect(resident.filter((p) => existsSync(`/proc/${p}`))).toEqual([]);
      // an exec on it fails clearly instead of hanging, and the next one gets a fresh sandbox
      const lost = await sb.exec(['true']);
      expect(lost.status).toBe('sandbox_error');
      expect(lost.error).toMatch(/launcher/);
      expect(await sb.exec(['sh', '-c', 'echo back'])).toMatchObject({ status: 'ok', stdout: 'back\n' });
      await t.manager.destroy(sb);
      const next = await t.manager.exec({ limits: { memoryMb: 128, diskMb: 16, timeoutMs: 10_000 } }, ['sh', '-c', 'echo fine']);
      expect(next).toMatchObject({ status: 'ok', stdout: 'fine\n' });
      expect(sharedLauncher(path.dirname(t.manager.environment('default').dir), runtimeOptions(settings()))).not.toBe(first);
    } finally {
      await t.cleanup();
    }
  });

  it('without the launcher (CRUCIBLE_SANDBOX_LAUNCHER=0) sandboxes start, check and confine the same way', async () => {
    const t = testManager('launcher-off', { runtime: { ...runtimeOptions(settings()), launcher: false } });
    try {
      const r = await t.manager.exec({ limits: { memoryMb: 128, diskMb: 16, timeoutMs: 10_000 } }, [
        'sh',
        '-c',
        'cat /proc/1/cmdline; echo; df -m /work | tail -1',
      ]);
      expect(r.status).toBe('ok');
      expect(r.stdout).toMatch(/^\/proc\/self\/fd\/6\0\n/);
      if (asRoot) expect(r.stdout).toMatch(/crucible-scratch\s+16 /); // the size-capped scratch, mounted by mount(8)
    } finally {
      await t.cleanup();
    }
  });
});
