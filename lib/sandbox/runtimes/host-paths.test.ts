import { cpSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvironment } from '../env/env-build';
import type { SandboxManager } from '../pool/manager';
import { TEST_STORE, installedRuntimes, testManager } from '../sandbox.testkit';
import { runtimeOptions, type RuntimeOptions } from './options';
import { settings } from '@/core/settings';

/**
 * Sandboxed code must not learn host paths (the data directory, the environment store,
 * the repository) or the host's cgroup layout from /proc/self/mountinfo and
 * /proc/self/cgroup. A bind mount of the rootfs showed the store's host path as its root;
 * the rootfs is now seen through an overlay of its own (scratch.ts).
 */
const asRoot = process.getuid?.() === 0;
const repo = path.resolve(import.meta.dirname, '../../..');
const probe = ['sh', '-c', 'cat /proc/self/mountinfo; echo ---; cat /proc/self/cgroup; echo ---; cat /proc/1/mountinfo'];

function hostPathsIn(text: string, paths: string[]): string[] {
  return paths.filter((p) => text.includes(p));
}

// the ways a sandbox's / gets mounted: bwrap warm (launcher), bwrap per exec, bwrap without
// the launcher (mount(8) from Node), and the OCI runtimes
const modes: { name: string; runtime: string; options?: Partial<RuntimeOptions> }[] = [
  { name: 'bwrap (warm, launcher)', runtime: 'bwrap' },
  { name: 'bwrap (per exec)', runtime: 'bwrap', options: { supervisor: false } },
  { name: 'bwrap (no launcher)', runtime: 'bwrap', options: { launcher: false } },
  ...installedRuntimes(['oci:runc', 'oci:crun'])
    .filter((r) => r.available)
    .map((r) => ({ name: r.name, runtime: r.name })),
];

describe.skipIf(!asRoot)('host paths are hidden from /proc/self/mountinfo and /proc/self/cgroup', () => {
  let manager: SandboxManager;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  beforeAll(() => {
    ({ manager, dataDir, cleanup } = testManager('hostpaths'));
  });
  afterAll(async () => cleanup?.());

  modes.forEach((mode, i) => {
    it(`${mode.name}: no data dir, store, scratch or repo path; cgroup paths are /`, async () => {
      // a mode's own runtime options need a manager of their own (runtimes are built per manager)
      const own = mode.options && testManager(`hostpaths-${i}`, { runtime: { ...runtimeOptions(settings()), ...mode.options } });
      const { manager: m, dataDir: dir } = own ?? { manager, dataDir };
      try {
        // distinct limits: a pooled sandbox of an earlier mode is never handed out again
        const r = await m.exec({ runtime: mode.runtime, limits: { memoryMb: 128, diskMb: 16 + i } }, probe);
        expect(r.status, r.error ?? r.stderr).toBe('ok');
        const [mountinfo, cgroup] = r.stdout.split('---\n') as [string, string, string];
        const env = m.environment('default');
        expect(hostPathsIn(r.stdout, [dir, TEST_STORE, env.dir, env.hash.replace('sha256:', ''), repo, '/sandboxes/', 'scratch/'])).toEqual([]);
        // / is a filesystem of its own (root "/"), not a bind of a store directory
        expect(mountinfo).toMatch(/^\d+ \d+ \d+:\d+ \/ \/ ro,\S+ - overlay crucible-root ro,lowerdir=\/proc\/self\/fd\/\d+:\/proc\/self\/fd\/\d+/m);
        const lines = cgroup.trim().split('\n');
        expect(lines.length).toBeGreaterThan(0);
        for (const l of lines) expect(l, 'a cgroup namespace rooted at the sandbox group').toMatch(/^\d+:[^:]*:\/$/);
      } finally {
        await own?.cleanup();
      }
    });
  });

  it('a sandbox whose rootfs the store replaced after it mounted it is refused (env_mismatch), never run on the old one', async () => {
    const store = path.join(dataDir, 'store');
    mkdirSync(store, { recursive: true, mode: 0o755 });
    const env = buildEnvironment({ name: 'viewpin', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], files: { '/etc/motd': 'hello\n' } }, store);
    const t = testManager('hostpaths-pin', { storeDir: store });
    try {
      for (const runtime of ['bwrap', ...modes.filter((m) => m.runtime.startsWith('oci:')).map((m) => m.runtime)]) {
        const sb = await t.manager.acquire({ runtime, env: 'viewpin', limits: { memoryMb: 64, diskMb: 8 } });
        try {
          expect((await sb.exec(['cat', '/etc/motd'])).stdout).toBe('hello\n');
          // replaced by an identical copy: the check of the store passes, but this sandbox's / is the old directory
          cpSync(env.rootfs, `${env.rootfs}.new`, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
          renameSync(env.rootfs, `${env.rootfs}.old`);
          renameSync(`${env.rootfs}.new`, env.rootfs);
          const r = await sb.exec(['cat', '/etc/motd']);
          expect(r.status, runtime).toBe('env_mismatch');
          expect(r.error).toMatch(/was replaced \(or removed\) after this sandbox mounted it/);
        } finally {
          await t.manager.destroy(sb);
          rmSync(`${env.rootfs}.old`, { recursive: true, force: true });
        }
        // a new sandbox sees the current rootfs
        const fresh = await t.manager.exec({ runtime, env: 'viewpin', limits: { memoryMb: 64, diskMb: 8 } }, ['cat', '/etc/motd']);
        expect(fresh.status, fresh.error).toBe('ok');
      }
    } finally {
      await t.cleanup();
    }
  });
});
