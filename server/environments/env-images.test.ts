import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environments } from '@/db/schema';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { DatabaseArtifactBackend } from '@/lib/artifacts/backends/database';
import { packEnvironmentImage } from '@/lib/sandbox/env/env-image';
import { buildEnvironment } from '@/lib/sandbox/env/env-build';
import { environmentBuilt, loadEnvironment } from '@/lib/sandbox/env/env-store';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { testDataDir } from '@/lib/sandbox/sandbox.testkit';
import { environmentImage, recordEnvironment, recordEnvironmentImage } from './registry';
import { sandboxRecords } from './sandbox-records';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

const small = { memoryMb: 128, diskMb: 16, cpus: 0.5, timeoutMs: 10_000 };
const NAME = 'imgtest';

/**
 * Environments on a new host (issue 19): host A builds and publishes an environment's image to
 * the database artifact backend; host B, with an empty environment store and its own data
 * directory and cache, runs a sandbox on it by fetching the image by hash. An image that does
 * not reproduce the baseline hash (a file added, or a build of another hash) is refused before
 * any sandbox starts on it.
 */
describe('environment images: fetched by hash on a host that never built them', () => {
  let database: Database;
  let tmp: string;
  const hosts: { dir: string; store: string; artifacts: ArtifactStore; manager: SandboxManager }[] = [];

  const host = (tag: string) => {
    const dir = testDataDir(`img-${tag}`);
    const store = path.join(dir, 'envs');
    mkdirSync(store, { mode: 0o755 });
    const artifacts = new ArtifactStore({
      backend: new DatabaseArtifactBackend(database.db, { host: tag }),
      cacheDir: path.join(dir, 'cache'),
      cacheBytes: 1 << 30,
    });
    const manager = new SandboxManager({
      dataDir: dir,
      storeDir: store,
      records: sandboxRecords(database.db, { images: artifacts }),
      maxIdlePerKey: 0,
      runtime: runtimeOptions(settings()),
    });
    const h = { dir, store, artifacts, manager };
    hosts.push(h);
    return h;
  };

  /** Re-pack host A's published image with `edit` applied to its extracted tree, and record it as the image. */
  const publishEdited = async (a: ReturnType<typeof host>, edit: (tree: string) => void) => {
    const tree = mkdtempSync(path.join(tmp, 'edit-'));
    const env = loadEnvironment(NAME, a.store);
    execFileSync('tar', ['-cf', path.join(tree, 'orig.tar'), '-C', env.dir, 'rootfs', 'manifest.json', 'meta.json']);
    mkdirSync(path.join(tree, 'x'));
    execFileSync('tar', ['-xpf', path.join(tree, 'orig.tar'), '-C', path.join(tree, 'x')]);
    edit(path.join(tree, 'x'));
    execFileSync('tar', ['-cf', path.join(tree, 'edited.tar'), '-C', path.join(tree, 'x'), 'rootfs', 'manifest.json', 'meta.json']);
    const ref = await a.artifacts.publishFile(path.join(tree, 'edited.tar'));
    await database.db.update(environments).set({ imageSha256: ref.sha256 }).where(eq(environments.name, NAME));
  };

  beforeAll(async () => {
    database = await freshDatabase();
    tmp = mkdtempSync('/tmp/crucible-env-images-');
    chmodSync(tmp, 0o755);
  });
  afterAll(async () => {
    for (const h of hosts) {
      await h.manager.close();
      await h.artifacts.close();
      rmSync(h.dir, { recursive: true, force: true });
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('host A publishes; host B, which never built it, fetches it by hash, verifies it and runs on the baseline', async () => {
    const a = host('a');
    const env = buildEnvironment(
      { name: NAME, include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat', '/usr/bin/echo'], files: { '/etc/marker': 'from host a\n' } },
      a.store,
    );
    await recordEnvironment(database.db, env);
    const file = path.join(tmp, 'image.tar');
    await packEnvironmentImage(env, file);
    const ref = await a.artifacts.publishFile(file);
    await recordEnvironmentImage(database.db, env, ref.sha256);
    expect(await environmentImage(database.db, NAME)).toEqual({ hash: env.hash, imageSha256: ref.sha256 });

    const b = host('b');
    expect(environmentBuilt(NAME, b.store)).toBe(false);
    const r = await b.manager.exec({ env: NAME, limits: small }, ['cat', '/etc/marker']);
    expect(r.status).toBe('ok');
    expect(r.stdout).toBe('from host a\n');
    expect(r.envHash).toBe(env.hash);
    expect(loadEnvironment(NAME, b.store).hash).toBe(env.hash);
  });

  it('refuses an image that does not reproduce the baseline: a file added to the rootfs', async () => {
    await publishEdited(hosts[0]!, (tree) => writeFileSync(path.join(tree, 'rootfs/etc/planted'), 'x'));
    const c = host('c');
    const r = await c.manager.exec({ env: NAME, limits: small }, ['cat', '/etc/marker']);
    expect(r.status).toBe('env_mismatch');
    expect(r.error).toMatch(/does not match its manifest.*added: \/etc\/planted/);
    expect(environmentBuilt(NAME, c.store)).toBe(false);
  });

  it('refuses an image of another environment (a manifest whose hash is not the baseline)', async () => {
    await publishEdited(hosts[0]!, (tree) => {
      appendFileSync(path.join(tree, 'rootfs/etc/marker'), 'edited\n');
      // a consistent image of a different build: manifest rewritten by hand to claim another hash
      const m = path.join(tree, 'manifest.json');
      const manifest = JSON.parse(execFileSync('cat', [m], { encoding: 'utf8' })) as { hash: string };
      writeFileSync(m, JSON.stringify({ ...manifest, hash: `sha256:${'0'.repeat(64)}` }));
    });
    const d = host('d');
    const r = await d.manager.exec({ env: NAME, limits: small }, ['cat', '/etc/marker']);
    expect(r.status).toBe('env_mismatch');
    expect(r.error).toMatch(/is of sha256:0{64}, not the baseline/);
  });

  it('refuses to record an image of a build that is not the baseline', async () => {
    const e = host('e');
    const other = buildEnvironment({ name: NAME, include: ['/usr/bin/sh', '/usr/bin/dash'], files: { '/etc/marker': 'from host e\n' } }, e.store);
    await expect(recordEnvironmentImage(database.db, other, 'f'.repeat(64))).rejects.toThrow(/its baseline is sha256:/);
  });
});
