import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { artifacts, environments, policyVersions } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { ArtifactMissingError, ArtifactStore, type ArtifactBackend } from '@/lib/artifacts/artifact-store';
import { DatabaseArtifactBackend } from '@/lib/artifacts/backends/database';
import { LocalArtifactBackend } from '@/lib/artifacts/backends/local';
import { collectArtifactGarbage } from './gc';

const HOUR = 3_600_000;
let database: Database;
let tmp: string;
beforeAll(async () => {
  database = await freshDatabase();
  tmp = mkdtempSync('/tmp/crucible-gc-');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const backends: [string, () => { backend: ArtifactBackend; age: (sha: string, ms: number) => Promise<void> }][] = [
  [
    'local',
    () => {
      const backend = new LocalArtifactBackend(path.join(tmp, 'local-store'));
      return {
        backend,
        age: async (sha, ms) => {
          const t = new Date(Date.now() - ms);
          utimesSync(backend.localPath(sha)!, t, t);
        },
      };
    },
  ],
  [
    'database',
    () => ({
      backend: new DatabaseArtifactBackend(database.db, { host: 'gc-test' }),
      age: async (sha, ms) =>
        void (await database.db
          .update(artifacts)
          .set({ createdAt: new Date(Date.now() - ms) })
          .where(eq(artifacts.sha256, sha))),
    }),
  ],
];

// What garbage collection may delete: only what no policy version or environment image
// references, and only after the grace period (a publish comes before the row referencing it).
describe.each(backends)('artifacts gc (%s backend)', (name, make) => {
  it('deletes unreferenced artifacts past the grace period, keeps referenced and recent ones, and a re-publish restarts the grace', async () => {
    const { backend, age } = make();
    const store = new ArtifactStore({ backend, cacheDir: path.join(tmp, `${name}-cache`), cacheBytes: 1 << 30 });
    const pub = (s: string) => store.publishBuffer(Buffer.from(`${name}: ${s}`));
    const [ckpt, image, orphan, recent] = await Promise.all([pub('checkpoint'), pub('image'), pub('orphan'), pub('recent')]);
    await database.db.insert(policyVersions).values({ version: 0, sha256: ckpt.sha256, bytes: ckpt.size });
    await database.db.insert(environments).values({ name: `gc-${name}`, contentHash: `sha256:${'a'.repeat(64)}`, imageSha256: image.sha256 });
    for (const r of [ckpt, image, orphan]) await age(r.sha256, 48 * HOUR);
    if (name !== 'local') await store.fetch(orphan.sha256); // a cached copy on this host, dropped with it

    const dry = await collectArtifactGarbage(database.db, store, { graceMs: 24 * HOUR, dryRun: true });
    expect(dry.deleted.map((a) => a.sha256)).toEqual([orphan.sha256]);
    expect(await backend.has(orphan.sha256)).toBe(true);

    const r = await collectArtifactGarbage(database.db, store, { graceMs: 24 * HOUR });
    expect(r).toMatchObject({ referenced: 2, recent: 1, bytesFreed: orphan.size, dryRun: false });
    expect(r.deleted.map((a) => a.sha256)).toEqual([orphan.sha256]);
    await expect(store.fetch(orphan.sha256)).rejects.toBeInstanceOf(ArtifactMissingError);
    for (const kept of [ckpt, image, recent]) expect(await backend.has(kept.sha256)).toBe(true);

    // published long ago, then published again (a learner about to reference it): not garbage
    await age(recent.sha256, 48 * HOUR);
    await pub('recent');
    const again = await collectArtifactGarbage(database.db, store, { graceMs: 24 * HOUR });
    expect(again.deleted).toEqual([]);
    expect(again.recent).toBe(1);
    await store.close();
  });
});
