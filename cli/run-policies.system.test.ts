import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { artifactChunks, policyVersions } from '@/db/schema';
import { runCrucible } from '@/test/cli';
import { freshDatabase } from '@/test/database';
import { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { DatabaseArtifactBackend } from '@/lib/artifacts/backends/database';
import { Policy } from '@/lib/policy/policy';
import { publishCheckpoint } from '@/workers/rl/policy-store';

let database: Database;
let tmp: string;

/** The real `crucible` binary against the test database, with its own data directory (another host). */
const crucible = (args: string[], dataDir: string) => runCrucible(args, { DATABASE_URL: database.url, CRUCIBLE_DATA_DIR: dataDir });

beforeAll(async () => {
  database = await freshDatabase();
  tmp = mkdtempSync('/tmp/crucible-policy-fetch-');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Scale-out (issue 19): a run's checkpoints are artifacts named by sha256; any host fetches a
// version by the hash its row records, never by a path on the host that trained it.
describe('crucible policy fetch: a run version from another host, by hash', () => {
  let runId: string;
  let sha: string;

  beforeAll(async () => {
    const created = await crucible(['runs', 'create', '--name', 'fetch me', '--json'], path.join(tmp, 'host-a'));
    expect(created.code, created.stderr).toBe(0);
    runId = (JSON.parse(created.stdout) as { id: string }).id;
    // host A "trains": publishes version 1 to the database backend and records it
    const store = new ArtifactStore({
      backend: new DatabaseArtifactBackend(database.db, { host: 'host-a' }),
      cacheDir: path.join(tmp, 'host-a-cache'),
      cacheBytes: 1 << 30,
    });
    const policy = Policy.create({ model: { dModel: 16, nLayers: 1, nHeads: 2, dMlp: 32, maxSeqLen: 32 }, seed: 3 });
    const ref = await publishCheckpoint(store, policy, runId, 1, path.join(tmp, 'host-a'));
    await policy.release();
    sha = ref.sha256;
    await database.db.insert(policyVersions).values({ runId, version: 1, sha256: ref.sha256, bytes: ref.size });
  });

  it('writes the latest version on a host that never had it, with the recorded sha256; the file loads as a policy', async () => {
    const out = path.join(tmp, 'got.ckpt');
    const r = await crucible(['policy', 'fetch', runId, '--out', out, '--json'], path.join(tmp, 'host-b'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ runId, version: 1, sha256: sha, backend: 'database' });
    expect(createHash('sha256').update(readFileSync(out)).digest('hex')).toBe(sha);
    const inspect = await crucible(['policy', 'inspect', out, '--json'], path.join(tmp, 'host-b'));
    expect(inspect.code, inspect.stderr).toBe(0);
  });

  it('names what is missing: a version the run does not have, and a malformed run id', async () => {
    const missing = await crucible(['policy', 'fetch', runId, '--version', '7', '--out', path.join(tmp, 'x.ckpt')], path.join(tmp, 'host-b'));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/has no policy version 7/);
    const bad = await crucible(['policy', 'fetch', 'not-a-run', '--out', path.join(tmp, 'x.ckpt')], path.join(tmp, 'host-b'));
    expect(bad.stderr).toMatch(/RUN_ID must be a run's id/);
  });

  it('refuses a stored checkpoint whose bytes no longer hash to the version (corrupted in the database)', async () => {
    await database.db
      .update(artifactChunks)
      .set({ data: sql`pg_catalog.set_byte(${artifactChunks.data}, 40, (pg_catalog.get_byte(${artifactChunks.data}, 40) + 1) % 256)` })
      .where(eq(artifactChunks.sha256, sha));
    const r = await crucible(['policy', 'fetch', runId, '--out', path.join(tmp, 'bad.ckpt')], path.join(tmp, 'host-c'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot fetch policy version v1 .*hash/);
  });
});
