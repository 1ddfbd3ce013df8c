import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { artifactChunks, artifacts } from '@/db/schema';
import { freshDatabase, ownerConnection } from '@/test/database';
import { ArtifactCorruptError, ArtifactMissingError, ArtifactStore } from './artifact-store';
import { openArtifactStore } from './open-artifact-store';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let database: Database;
let owner: Database;
let tmp: string;
beforeAll(async () => {
  database = await freshDatabase();
  owner = ownerConnection(database);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-artifacts-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

let hostN = 0;
/** A worker host: its own data directory (cache), the backend the settings choose. */
function host(backend: 'local' | 'database', opts: { storeDir?: string } = {}) {
  const dataDir = path.join(tmp, `host-${++hostN}`);
  const log: string[] = [];
  const s = parseSettings({ CRUCIBLE_ARTIFACT_BACKEND: backend, CRUCIBLE_NODE: `host-${hostN}`, CRUCIBLE_ARTIFACT_DIR: opts.storeDir });
  const store = openArtifactStore(s, { dataDir, db: database.db, log: (l) => log.push(l) });
  return { store, log, name: `host-${hostN}` };
}

async function randomFile(bytes: number): Promise<{ file: string; data: Buffer }> {
  const data = randomBytes(bytes);
  const file = path.join(tmp, `src-${sha(data).slice(0, 12)}`);
  await fs.writeFile(file, data);
  return { file, data };
}

/** Flip bytes in the middle of a file, keeping its size. */
async function corrupt(file: string, at: number) {
  const fh = await fs.open(file, 'r+');
  const b = Buffer.alloc(16);
  await fh.read(b, 0, 16, at);
  for (let i = 0; i < 16; i++) b[i]! ^= 0xff;
  await fh.write(b, 0, 16, at);
  await fh.close();
}

const cachedNames = async (store: ArtifactStore) => (await fs.readdir(store.opts.cacheDir).catch(() => [] as string[])).sort();

describe.each(['local', 'database'] as const)('artifact store, %s backend', (kind) => {
  // Both hosts share one backend: the same database, or the same directory (a shared mount).
  const storeDir = () => path.join(tmp, 'shared-local-store');
  const newHost = () => host(kind, { storeDir: storeDir() });

  it('publishes a multi-chunk artifact on one host and fetches the same bytes on another', async () => {
    const { file, data } = await randomFile(3.5 * MiB);
    const a = newHost();
    const ref = await a.store.publishFile(file);
    expect(ref).toEqual({ sha256: sha(data), size: data.length });
    const b = newHost();
    const got = await b.store.fetch(ref.sha256);
    expect(sha(await fs.readFile(got))).toBe(ref.sha256);
    expect(await b.store.backend.has(ref.sha256)).toBe(true);
    if (kind === 'database') {
      const [row] = await database.db.select().from(artifacts).where(eq(artifacts.sha256, ref.sha256));
      expect(row).toMatchObject({ size: data.length, chunks: 4, publishedBy: a.name });
      const [n] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(artifactChunks)
        .where(eq(artifactChunks.sha256, ref.sha256));
      expect(n!.n).toBe(4);
      expect(got.startsWith(b.store.opts.cacheDir)).toBe(true);
    }
  });

  it('re-publishing the same bytes, also from two hosts at once, stores one copy and never fails', async () => {
    const { file, data } = await randomFile(2.5 * MiB);
    const [a, b] = [newHost(), newHost()];
    const refs = await Promise.all([a.store.publishFile(file), b.store.publishFile(file), a.store.publishFile(file)]);
    for (const r of refs) expect(r).toEqual({ sha256: sha(data), size: data.length });
    expect(await a.store.publishFile(file)).toEqual(refs[0]);
    if (kind === 'database') {
      const rows = await database.db
        .select()
        .from(artifacts)
        .where(eq(artifacts.sha256, sha(data)));
      expect(rows).toHaveLength(1);
      const [n] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(artifactChunks)
        .where(eq(artifactChunks.sha256, sha(data)));
      expect(n!.n).toBe(3);
    } else {
      const dir = path.join(storeDir(), sha(data).slice(0, 2));
      expect(await fs.readdir(dir)).toEqual([sha(data)]); // no temp files left
    }
    expect(sha(await fs.readFile(await newHost().store.fetch(sha(data))))).toBe(sha(data));
  });

  it('a missing artifact is ArtifactMissingError; a malformed hash is refused', async () => {
    const { store } = newHost();
    const nope = sha(randomBytes(8));
    await expect(store.fetch(nope)).rejects.toBeInstanceOf(ArtifactMissingError);
    await expect(store.fetch(nope)).rejects.toThrow(/never published there/);
    await expect(store.fetch('../etc/passwd')).rejects.toThrow(/not an artifact hash/);
  });

  it('a publish whose body fails part-way leaves nothing a reader can see', async () => {
    const { store } = newHost();
    const data = randomBytes(3 * MiB);
    const ref = { sha256: sha(data), size: data.length };
    async function* failing() {
      yield data.subarray(0, 2.5 * MiB);
      throw new Error('publisher crashed');
    }
    await expect(store.backend.put(ref, () => Readable.from(failing(), { objectMode: false }))).rejects.toThrow(/publisher crashed/);
    expect(await store.backend.has(ref.sha256)).toBe(false);
    await expect(store.fetch(ref.sha256)).rejects.toBeInstanceOf(ArtifactMissingError);
    // a body shorter than its ref is refused too
    await expect(store.backend.put(ref, () => Readable.from([data.subarray(0, MiB)]))).rejects.toThrow(/bytes/);
    expect(await store.backend.has(ref.sha256)).toBe(false);
    if (kind === 'database') {
      const [n] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(artifactChunks)
        .where(eq(artifactChunks.sha256, ref.sha256));
      expect(n!.n).toBe(0);
    } else {
      expect(await fs.readdir(path.join(storeDir(), ref.sha256.slice(0, 2)))).toEqual([]);
    }
  });

  it('a corrupt backend copy is ArtifactCorruptError with its hash, after one fetch (no retry loop); republishing with replace repairs it', async () => {
    const { file, data } = await randomFile(3.5 * MiB);
    const ref = await newHost().store.publishFile(file);
    if (kind === 'database') {
      // an owner (or a disk) flips bytes in chunk 1, keeping its length
      await owner.sql`update artifact_chunks set data = overlay(data placing ${randomBytes(64)} from 100) where sha256 = ${ref.sha256} and seq = 1`;
    } else {
      await corrupt(path.join(storeDir(), ref.sha256.slice(0, 2), ref.sha256), 2 * MiB);
    }
    const b = newHost();
    const get = vi.spyOn(b.store.backend, 'get');
    const err = await b.store.fetch(ref.sha256).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactCorruptError);
    expect((err as ArtifactCorruptError).got).toMatch(/^[0-9a-f]{64}$/);
    expect((err as ArtifactCorruptError).got).not.toBe(ref.sha256);
    expect((err as Error).message).toContain(`hashes to ${(err as ArtifactCorruptError).got}`);
    expect((err as Error).message).toMatch(/stored copy is corrupt/);
    expect(get.mock.calls.length).toBeLessThanOrEqual(1);
    if (kind === 'database') expect(await cachedNames(b.store)).toEqual([]); // nothing corrupt cached, no temp left
    // a plain re-publish keeps the (corrupt) copy; replace rewrites it
    await b.store.publishFile(file);
    await expect(newHost().store.fetch(ref.sha256)).rejects.toBeInstanceOf(ArtifactCorruptError);
    await b.store.publishFile(file, { replace: true });
    expect(sha(await fs.readFile(await newHost().store.fetch(ref.sha256)))).toBe(sha(data));
  });
});

describe("database backend: this host's cache", () => {
  it('a chunk missing from the database is ArtifactCorruptError naming the chunk', async () => {
    const { file } = await randomFile(2.5 * MiB);
    const ref = await host('database').store.publishFile(file);
    // the first chunk gone: its batch still returns rows, just not chunk 0
    await owner.sql`delete from artifact_chunks where sha256 = ${ref.sha256} and seq = 0`;
    await expect(host('database').store.fetch(ref.sha256)).rejects.toThrow(/is missing chunk 0 of 3/);
  });

  it('a corrupted cached copy is detected, dropped and fetched again from the backend', async () => {
    const { file, data } = await randomFile(3.5 * MiB);
    const ref = await host('database').store.publishFile(file);
    const b = host('database');
    const cached = await b.store.fetch(ref.sha256);
    await corrupt(cached, 1000);
    expect(sha(await fs.readFile(cached))).not.toBe(ref.sha256);
    const get = vi.spyOn(b.store.backend, 'get');
    const again = await b.store.fetch(ref.sha256);
    expect(again).toBe(cached);
    expect(sha(await fs.readFile(again))).toBe(sha(data));
    expect(get).toHaveBeenCalledTimes(1);
    expect(b.log.join('\n')).toMatch(new RegExp(`artifact ${ref.sha256}: the cached copy .* hashes to [0-9a-f]{64}; dropped, fetching it again from database`));
    // a sound cached copy is used as is: no backend read
    await b.store.fetch(ref.sha256);
    expect(get).toHaveBeenCalledTimes(1);
  });

  it('publishing seeds the cache: the publisher fetches without reading the backend', async () => {
    const { file } = await randomFile(MiB);
    const a = host('database');
    const ref = await a.store.publishFile(file);
    expect(await cachedNames(a.store)).toEqual([ref.sha256]);
    const get = vi.spyOn(a.store.backend, 'get');
    await a.store.fetch(ref.sha256);
    const buf = await a.store.publishBuffer(randomBytes(1000));
    await a.store.fetch(buf.sha256);
    expect(get).not.toHaveBeenCalled();
  });

  it('concurrent fetches of one hash in a process share one download', async () => {
    const { file } = await randomFile(2 * MiB);
    const ref = await host('database').store.publishFile(file);
    const b = host('database');
    const get = vi.spyOn(b.store.backend, 'get');
    const paths = await Promise.all(Array.from({ length: 5 }, () => b.store.fetch(ref.sha256)));
    expect(new Set(paths).size).toBe(1);
    expect(get).toHaveBeenCalledTimes(1);
    expect(sha(await fs.readFile(paths[0]!))).toBe(ref.sha256);
  });

  it('the cache keeps to its size bound, evicting the least recently used; an artifact larger than the bound is still handed out', async () => {
    const publisher = host('database');
    const refs = [];
    for (let i = 0; i < 4; i++) refs.push(await publisher.store.publishFile((await randomFile(MiB)).file));
    const [a, b, c, d] = refs.map((r) => r.sha256) as [string, string, string, string];
    const base = host('database').store;
    const store = new ArtifactStore({ ...base.opts, cacheBytes: 2.5 * MiB });
    const tick = () => new Promise((r) => setTimeout(r, 20)); // distinct mtimes
    const total = async () =>
      (await Promise.all((await cachedNames(store)).map((n) => fs.stat(path.join(store.opts.cacheDir, n))))).reduce((s, st) => s + st.size, 0);
    await store.fetch(a);
    await tick();
    await store.fetch(b);
    await tick();
    await store.fetch(a); // a hit: a is now more recent than b
    await tick();
    await store.fetch(c);
    expect(await cachedNames(store)).toEqual([a, c].sort());
    expect(await total()).toBeLessThanOrEqual(2.5 * MiB);
    await tick();
    await store.fetch(d);
    expect(await cachedNames(store)).toEqual([c, d].sort());
    // bound below one artifact: the fetched file survives its own trim
    const small = new ArtifactStore({ ...base.opts, cacheDir: path.join(tmp, 'small-cache'), cacheBytes: 1 });
    const { file, data } = await randomFile(3.5 * MiB);
    const big = await publisher.store.publishFile(file);
    expect(sha(await fs.readFile(await small.fetch(big.sha256)))).toBe(sha(data));
    // a dead writer's temp file is garbage; a live one's is not
    const dead = path.join(store.opts.cacheDir, `.999999999.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.tmp`);
    const live = path.join(store.opts.cacheDir, `.${process.pid}.${'1'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.tmp`);
    await fs.writeFile(dead, 'x');
    await fs.writeFile(live, 'x');
    await store.trim();
    expect(await fs.readdir(store.opts.cacheDir)).toContain(path.basename(live));
    expect(await fs.readdir(store.opts.cacheDir)).not.toContain(path.basename(dead));
  });
});

describe('database backend streams', () => {
  it('publish and fetch of a 64 MiB artifact keep live memory far below its size; a reader that stops reading stops the queries', async () => {
    // Live memory, not garbage: a full GC before each sample (gc exposed at run time).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const size = 64 * MiB;
    const file = path.join(tmp, 'big');
    await pipeline(
      Readable.from(
        (function* () {
          for (let i = 0; i < size / MiB; i++) yield randomBytes(MiB);
        })(),
      ),
      createWriteStream(file),
    );
    // two full GCs: the second also frees the array buffers the first only unreferenced
    const live = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const a = host('database');
    const b = host('database');
    /** the most live memory above the start while `f` runs, sampled every 100 ms */
    const peakDuring = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
      const baseline = live();
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, live() - baseline)), 100);
      try {
        const out = await f();
        return [out, peak];
      } finally {
        clearInterval(sampler);
      }
    };
    const [ref, publishPeak] = await peakDuring(() => a.store.publishFile(file));
    const [got, fetchPeak] = await peakDuring(() => b.store.fetch(ref.sha256));
    expect((await fs.stat(got)).size).toBe(size);
    console.log(
      `64 MiB through the database: peak live memory +${(publishPeak / MiB).toFixed(1)} MiB publishing, +${(fetchPeak / MiB).toFixed(1)} MiB fetching`,
    );
    expect(fetchPeak).toBeGreaterThan(0); // sampled at all
    expect(publishPeak).toBeLessThan(20 * MiB);
    expect(fetchPeak).toBeLessThan(20 * MiB);

    // backpressure: nothing read → at most a chunk buffered and one query's worth held
    const stream = await b.store.backend.get(ref.sha256);
    stream.read(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(stream.readableLength).toBeLessThanOrEqual(2 * MiB);
    stream.destroy();
  }, 60_000);
});
