import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * The content-addressed artifact store (issue 19): policy checkpoints, exported models,
 * environment images and other files a run produces or needs, named by the sha256 of their
 * bytes so any worker host can fetch them. Bytes live in one backend (a local directory, the
 * database, S3-compatible object storage); each host keeps a bounded local cache by hash and
 * verifies every artifact against its hash before handing it out.
 */

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** What a published artifact is; content addressing makes a re-publish of the same bytes a no-op. */
export type ArtifactRef = { sha256: string; size: number };

/** Where artifact bytes live. Backends know nothing of caches or hashing; the store does both. */
export interface ArtifactBackend {
  readonly name: 'local' | 'database' | 's3';
  /** Store `size` bytes read from `body()` under `sha256` (already computed by the store); a no-op if present. */
  put(ref: ArtifactRef, body: () => Readable): Promise<void>;
  /** The bytes stored under `sha256`, streamed; rejects with `ArtifactMissingError` when absent. */
  get(sha256: string): Promise<Readable>;
  has(sha256: string): Promise<boolean>;
  /** A file already on this host holding the artifact (the local backend), used instead of a cached copy. */
  localPath?(sha256: string): string | undefined;
  /** a human description for logs and `docs/scale-out.md`, e.g. "database", "s3://bucket at http://…" */
  describe(): string;
  close?(): Promise<void>;
}

export class ArtifactMissingError extends Error {
  constructor(
    readonly sha256: string,
    where: string,
  ) {
    super(`artifact ${sha256} is not in the ${where} artifact store: it was never published there, or that store was reset`);
  }
}

/** The bytes fetched for an artifact do not hash to its name twice in a row: an infrastructure failure, never retried silently. */
export class ArtifactCorruptError extends Error {
  constructor(
    readonly sha256: string,
    readonly got: string,
    where: string,
  ) {
    super(
      `artifact ${sha256} fetched from the ${where} artifact store hashes to ${got}: the stored copy is corrupt; republish it (or restore the store) and retry`,
    );
  }
}

export async function sha256OfFile(file: string): Promise<ArtifactRef> {
  const h = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size };
}

export type ArtifactStoreOptions = {
  backend: ArtifactBackend;
  /** this host's cache of fetched artifacts (`<data>/artifacts/cache`) */
  cacheDir: string;
  /** the cache is trimmed to this many bytes, least recently used first (an artifact in use is a file already open: unlinking it is safe) */
  cacheBytes: number;
};

export class ArtifactStore {
  constructor(readonly opts: ArtifactStoreOptions) {}

  get backend(): ArtifactBackend {
    return this.opts.backend;
  }

  /** Publish a file: hash it, store it in the backend, and keep it in this host's cache. */
  async publishFile(file: string): Promise<ArtifactRef> {
    const ref = await sha256OfFile(file);
    if (!(await this.opts.backend.has(ref.sha256))) await this.opts.backend.put(ref, () => createReadStream(file));
    if (!this.opts.backend.localPath) {
      await fs.mkdir(this.opts.cacheDir, { recursive: true });
      const tmp = `${this.cachePath(ref.sha256)}.${process.pid}.${Date.now()}.tmp`;
      await fs.copyFile(file, tmp);
      await fs.rename(tmp, this.cachePath(ref.sha256));
      await this.trim();
    }
    return ref;
  }

  /**
   * A verified local file holding the artifact: this host's cached copy when its bytes still
   * hash to `sha256`, else fetched again from the backend. A cached copy that fails is dropped
   * and re-fetched once; a fetched copy that fails is `ArtifactCorruptError`.
   */
  async fetch(sha256: string): Promise<string> {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not an artifact hash: ${JSON.stringify(sha256)} (64 lowercase hex digits)`);
    const local = this.opts.backend.localPath?.(sha256);
    if (local) {
      const got = await sha256OfFile(local).catch(() => undefined);
      if (!got) throw new ArtifactMissingError(sha256, this.opts.backend.describe());
      if (got.sha256 !== sha256) throw new ArtifactCorruptError(sha256, got.sha256, this.opts.backend.describe());
      return local;
    }
    const file = this.cachePath(sha256);
    const cached = await sha256OfFile(file).catch(() => undefined);
    if (cached?.sha256 === sha256) {
      const now = new Date();
      await fs.utimes(file, now, now).catch(() => undefined);
      return file;
    }
    await fs.rm(file, { force: true });
    await fs.mkdir(this.opts.cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await pipeline(await this.opts.backend.get(sha256), createWriteStream(tmp));
      const got = await sha256OfFile(tmp);
      if (got.sha256 !== sha256) throw new ArtifactCorruptError(sha256, got.sha256, this.opts.backend.describe());
      await fs.rename(tmp, file);
    } finally {
      await fs.rm(tmp, { force: true });
    }
    await this.trim(file);
    return file;
  }

  cachePath(sha256: string): string {
    return path.join(this.opts.cacheDir, sha256);
  }

  /** Evict least recently used cached artifacts until the cache fits its bound (never `keep`). */
  async trim(keep?: string): Promise<void> {
    const names = await fs.readdir(this.opts.cacheDir).catch(() => [] as string[]);
    const entries = [];
    for (const name of names) {
      if (!SHA256_HEX.test(name)) continue;
      const st = await fs.stat(path.join(this.opts.cacheDir, name)).catch(() => undefined);
      if (st) entries.push({ file: path.join(this.opts.cacheDir, name), size: st.size, used: st.mtimeMs });
    }
    let total = entries.reduce((s, e) => s + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= this.opts.cacheBytes) break;
      if (e.file === keep) continue;
      await fs.rm(e.file, { force: true });
      total -= e.size;
    }
  }

  async close(): Promise<void> {
    await this.opts.backend.close?.();
  }
}
