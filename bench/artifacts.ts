import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { settings, type Settings } from '@/core/settings';
import { openDatabase } from '@/db/open-database';
import { ArtifactStore, sha256OfFile } from '@/lib/artifacts/artifact-store';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';

// `npm run bench -- artifacts [--mb 100] [--reps 5] [--json]`
//
// Publish and fetch of a checkpoint-sized random file through each artifact backend, next to a
// plain `fs.copyFile` of the same file in the same run. Every repetition uses fresh random bytes
// (content addressing would make a second publish of the same bytes a no-op). Per backend:
//   publish     store.publishFile(file) on host A (hash, store in the backend, seed A's cache)
//   fetch cold  store.fetch(hash) on host B with an empty cache: backend → B's cache, verified
//   fetch warm  the same fetch again: B's cached copy, verified by hashing it
// (`local` keeps no cache: a fetch verifies the store's own file in place, cold or warm.)
// The database arm runs on a throwaway embedded PostgreSQL in a temp directory; the s3 arm runs
// when CRUCIBLE_S3_BUCKET is set and the factory builds an s3 store.

const optionsSchema = z.object({
  mb: z.number().int().min(1).max(4096),
  reps: z.number().int().min(1).max(50),
  json: z.boolean(),
});

const MiB = 1024 * 1024;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function time(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function writeRandom(file: string, bytes: number) {
  await pipeline(
    Readable.from(
      (function* () {
        for (let left = bytes; left > 0; left -= MiB) yield randomBytes(Math.min(MiB, left));
      })(),
    ),
    createWriteStream(file),
  );
}

type Arm = { name: string; publisher: ArtifactStore; fetcher: ArtifactStore; clear: (sha256: string) => Promise<void> };

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { mb: { type: 'string', default: '100' }, reps: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } },
  });
  const opts = optionsSchema.parse({ mb: Number(values.mb), reps: Number(values.reps), json: values.json });
  const log = (s: string) => !opts.json && console.log(s);
  const bytes = opts.mb * MiB;

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-bench-artifacts-'));
  chmodSync(dir, 0o755); // the embedded Postgres (as root: another user) must traverse it
  const opened = await openDatabase({ appName: 'bench-artifacts', startEmbedded: true, max: 10, dataDir: dir, useDatabaseUrl: false });
  const { db } = opened.database;
  const base = settings();
  const host = (backend: Settings['CRUCIBLE_ARTIFACT_BACKEND'], name: string) =>
    openArtifactStore(
      { ...base, CRUCIBLE_ARTIFACT_BACKEND: backend, CRUCIBLE_ARTIFACT_DIR: path.join(dir, 'local-store') },
      { dataDir: path.join(dir, name), db },
    );
  const arms: Arm[] = [];
  const skipped: string[] = [];
  const cachedOnly = (store: ArtifactStore) => (sha256: string) => fs.rm(store.cachePath(sha256), { force: true });
  try {
    {
      const publisher = host('local', 'local-a');
      arms.push({
        name: 'local',
        publisher,
        fetcher: host('local', 'local-b'),
        clear: (sha256) => fs.rm(path.join(dir, 'local-store', sha256.slice(0, 2), sha256), { force: true }),
      });
    }
    {
      const publisher = host('database', 'db-a');
      const fetcher = host('database', 'db-b');
      arms.push({
        name: 'database',
        publisher,
        fetcher,
        clear: async (sha256) => {
          await opened.database.sql`delete from artifacts where sha256 = ${sha256}`;
          await opened.database.sql`delete from artifact_chunks where sha256 = ${sha256}`;
          await cachedOnly(publisher)(sha256);
          await cachedOnly(fetcher)(sha256);
        },
      });
    }
    if (!base.CRUCIBLE_S3_BUCKET) skipped.push('s3: CRUCIBLE_S3_BUCKET is not set (set it and the CRUCIBLE_S3_* settings to include an s3 arm)');
    else {
      try {
        const publisher = host('s3', 's3-a');
        const fetcher = host('s3', 's3-b');
        // artifacts stay in the bucket (the bench does not delete from a shared bucket): fresh bytes each repetition
        arms.push({
          name: 's3',
          publisher,
          fetcher,
          clear: async (sha256) => {
            await cachedOnly(publisher)(sha256);
            await cachedOnly(fetcher)(sha256);
          },
        });
      } catch (e) {
        skipped.push(`s3: the factory could not open it: ${(e as Error).message}`);
      }
    }

    log(`artifacts bench: ${opts.mb} MiB random file, ${opts.reps} repetitions, ${os.availableParallelism()} CPUs; temp dir ${dir}`);
    const ms: Record<string, number[]> = {};
    const add = (k: string, v: number) => (ms[k] ??= []).push(v);
    for (let rep = 0; rep < opts.reps; rep++) {
      const src = path.join(dir, `src-${rep}`);
      await writeRandom(src, bytes);
      add('plain copy (fs.copyFile)', await time(() => fs.copyFile(src, path.join(dir, 'copy'))));
      await fs.rm(path.join(dir, 'copy'));
      add('plain sha256 of the file', await time(() => sha256OfFile(src)));
      for (const arm of arms) {
        let sha256 = '';
        add(`${arm.name} publish`, await time(async () => (sha256 = (await arm.publisher.publishFile(src)).sha256)));
        add(`${arm.name} fetch cold`, await time(() => arm.fetcher.fetch(sha256)));
        add(`${arm.name} fetch warm`, await time(() => arm.fetcher.fetch(sha256)));
        await arm.clear(sha256);
      }
      await fs.rm(src);
      log(`  repetition ${rep + 1}/${opts.reps} done`);
    }

    const copy = median(ms['plain copy (fs.copyFile)']!);
    const rows = Object.entries(ms).map(([what, xs]) => {
      const m = median(xs);
      return { what, medianMs: m, mibPerS: bytes / MiB / (m / 1000), xCopy: m / copy };
    });
    if (opts.json) console.log(JSON.stringify({ mib: opts.mb, reps: opts.reps, rows, skipped }, null, 2));
    else {
      log('');
      log(`${'what'.padEnd(28)} ${'median ms'.padStart(10)} ${'MiB/s'.padStart(9)} ${'× copy'.padStart(8)}`);
      for (const r of rows)
        log(`${r.what.padEnd(28)} ${r.medianMs.toFixed(0).padStart(10)} ${r.mibPerS.toFixed(0).padStart(9)} ${r.xCopy.toFixed(1).padStart(8)}`);
      log('');
      log('(× copy: median time over the plain copy\'s; "local" fetches verify the store\'s file in place, no copy)');
      for (const s of skipped) log(`skipped ${s}`);
    }
    return 0;
  } finally {
    for (const arm of arms) await Promise.all([arm.publisher.close(), arm.fetcher.close()]).catch(() => {});
    await opened.close().catch(() => {});
    await fs.rm(dir, { recursive: true, force: true });
  }
}
