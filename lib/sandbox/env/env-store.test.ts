import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEnvironment, type EnvSpecInput } from './env-build';
import { loadEnvironment } from './env-store';
import { verifyEnvironmentFast, verifyEnvironmentFull } from './env-verify';
import { BwrapRuntime } from '../runtimes/bwrap';
import { limitsSchema } from '../types';
import { testDataDir } from '../sandbox.testkit';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

// A tiny environment (dash + its libraries) keeps these tests fast and private: tampering
// here never touches the shared default environment of the other sandbox tests.
const tiny: EnvSpecInput = { name: 'tiny', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], files: { '/etc/motd': 'hello\n' }, toolchain: ['sh'] };
const root = testDataDir('envstore');
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const freshStore = () => {
  const dir = path.join(root, `store-${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe('environment store', () => {
  it('builds a content-addressed environment whose hash is the manifest digest, independent of where or when', () => {
    const a = buildEnvironment(tiny, freshStore());
    const b = buildEnvironment(tiny, freshStore());
    expect(a.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.hash).toBe(a.hash);
    expect(path.basename(a.dir)).toBe(a.hash.slice(7));
    const manifest = JSON.parse(readFileSync(a.manifestPath, 'utf8')) as { entries: { path: string; type: string; mode?: number; sha256?: string }[] };
    const dash = manifest.entries.find((e) => e.path === '/usr/bin/dash')!;
    expect(dash).toMatchObject({ type: 'file', mode: 0o755 });
    expect(dash.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.entries.some((e) => e.path.includes('libc.so'))).toBe(true); // ldd pulled in libc
    expect(a.toolchainLock.sh).toContain('dash');
    const other = buildEnvironment({ ...tiny, files: { '/etc/motd': 'changed\n' } }, freshStore());
    expect(other.hash).not.toBe(a.hash);
  });

  it('records toolchain versions by running them at build time', () => {
    const env = buildEnvironment({ name: 'py', include: ['/usr/bin/python3', '/usr/lib/python3.11/os.py'], toolchain: ['python3', 'gcc'] }, freshStore());
    expect(env.toolchainLock.python3).toMatch(/^Python 3\.\d+\.\d+/);
    expect(env.toolchainLock.gcc).toBeUndefined(); // not in the environment
  });

  const tamperings: [string, (rootfs: string) => void][] = [
    ['modified file', (r) => appendFileSync(path.join(r, 'etc/motd'), 'x')],
    [
      'modified file with restored mtime',
      (r) => {
        const f = path.join(r, 'etc/motd');
        const st = statSync(f);
        writeFileSync(f, 'hellO\n');
        utimesSync(f, st.atime, st.mtime);
      },
    ],
    ['added file', (r) => writeFileSync(path.join(r, 'usr/bin/evil'), '#!/bin/sh\n')],
    ['removed file', (r) => unlinkSync(path.join(r, 'usr/bin/cat'))],
    ['chmod', (r) => chmodSync(path.join(r, 'usr/bin/dash'), 0o4755)],
  ];
  for (const [what, tamper] of tamperings) {
    it(`fast verify catches a ${what}, and a sandbox start is refused with env_mismatch`, async () => {
      const store = freshStore();
      const env = buildEnvironment(tiny, store);
      expect(verifyEnvironmentFast(env)).toMatchObject({ ok: true, mode: 'fast' });
      tamper(env.rootfs);
      const v = verifyEnvironmentFast(env);
      expect(v.ok).toBe(false);
      expect(v.problems.length).toBeGreaterThan(0);
      const sb = new BwrapRuntime(runtimeOptions(settings())).create({
        env,
        limits: limitsSchema.parse({ memoryMb: 64, diskMb: 8, timeoutMs: 5000 }),
        dataDir: root,
      });
      try {
        const r = await sb.exec(['cat', '/etc/motd']);
        expect(r.status).toBe('env_mismatch');
        expect(r.envHash).toBe(env.hash);
        expect(r.error).toContain('changed');
      } finally {
        sb.destroy();
      }
      // rebuilding restores the same hash and a passing check
      const again = buildEnvironment(tiny, store);
      expect(again.hash).toBe(env.hash);
      expect(verifyEnvironmentFull(again).ok).toBe(true);
    });
  }

  it('a touched but unchanged file passes after the full re-hash re-baselines', () => {
    const env = buildEnvironment(tiny, freshStore());
    const f = path.join(env.rootfs, 'etc/motd');
    utimesSync(f, new Date(), new Date());
    const v = verifyEnvironmentFast(env);
    expect(v).toMatchObject({ ok: true, mode: 'full' });
    expect(verifyEnvironmentFast(env)).toMatchObject({ ok: true, mode: 'fast' });
  });

  it('names resolve through refs; an unknown name says how to build it', () => {
    const store = freshStore();
    const env = buildEnvironment(tiny, store);
    expect(loadEnvironment('tiny', store).hash).toBe(env.hash);
    expect(() => loadEnvironment('nope', store)).toThrow(/crucible env build/);
  });

  it('refuses invalid specs', () => {
    expect(() => buildEnvironment({ name: 'Bad Name' }, freshStore())).toThrow();
    expect(() => buildEnvironment({ name: 'x', include: ['/does/not/exist'] }, freshStore())).toThrow(/does not exist/);
  });
});
