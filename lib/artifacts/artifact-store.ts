import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * The content-addressed artifact store (issue 19): policy checkpoints, exported models,
 * environment images and other files a run produces or needs, named by the sha256 of their
 * bytes so any worker host can fetch them. Bytes live in one backend (a local directory, the
 * database, S3-compatible object storage); each host keeps a bounded local cache by hash and
 * verifies every artifact against its hash before handing it out.
 */

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** read size for files the store hashes or uploads: 1 MiB reads hash about 1.5x faster than the 64 KiB default */
const READ_BYTES = 1024 * 1024;

/** What a published artifact is; content addressing makes a re-publish of the same bytes a no-op. */
export type ArtifactRef = { sha256: string; size: number };

/** An artifact as a backend lists it. */
export type StoredArtifact = { sha256: string; size: number; publishedAt: Date };

export type PutOptions = {
  /** overwrite a copy the backend already holds (repairing a corrupt one) instead of keeping it */
  replace?: boolean;
};

/** Where artifact bytes live. Backends know nothing of caches or hashing; the store does both. */
export interface ArtifactBackend {
  readonly name: 'local' | 'database' | 's3';
  /**
   * Store `size` bytes read from `body()` under `sha256` (already computed by the store); a
   * no-op if present unless `opts.replace`. Atomic: a failed or crashed put leaves nothing a
   * reader can see, and a stream error from `body()` must fail the put.
   */
  put(ref: ArtifactRef, body: () => Readable, opts?: PutOptions): Promise<void>;
  /** The bytes stored under `sha256`, streamed; rejects with `ArtifactMissingError` when absent. */
  get(sha256: string): Promise<Readable>;
  has(sha256: string): Promise<boolean>;
  /**
   * Every stored artifact with when it was last published (a re-publish of present bytes
   * refreshes it where the backend can, so garbage collection's grace period covers a
   * version row about to reference it), for `crucible artifacts gc`.
   */
  list(): AsyncIterable<StoredArtifact>;
  /** Remove an artifact; removing an absent one is a no-op. */
  delete(sha256: string): Promise<void>;
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

/**
 * The backend's copy of an artifact is not its bytes (they hash to `got`, or `reason` says
 * what else is wrong): an infrastructure failure, reported once and never retried silently
 * (a fresh fetch from the backend failed, not only this host's cached copy).
 */
export class ArtifactCorruptError extends Error {
  constructor(
    readonly sha256: string,
    readonly got: string,
    where: string,
    readonly reason?: string,
  ) {
    super(
      `artifact ${sha256} fetched from the ${where} artifact store ${reason ?? `hashes to ${got}`}: the stored copy is corrupt; ` +
        'publish the original bytes again with { replace: true } (ArtifactStore.publishFile) or restore the store, then retry',
    );
  }
}

export async function sha256OfFile(file: string): Promise<ArtifactRef> {
  const h = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: READ_BYTES })) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size };
}

/** A pass-through that hashes and counts what flows through it. */
function hashing(): { through: Transform; digest: () => ArtifactRef } {
  const h: Hash = createHash('sha256');
  let size = 0;
  const through = new Transform({
    transform(chunk: Buffer, _enc, done) {
      h.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { through, digest: () => ({ sha256: h.digest('hex'), size }) };
}

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** Whether process `pid` (on this host) is alive: temp files of dead writers are garbage. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type ArtifactStoreOptions = {
  backend: ArtifactBackend;
  /** this host's cache of fetched artifacts (`<data>/artifacts/cache`) */
  cacheDir: string;
  /**
   * The cache is trimmed to this many bytes, least recently used (by mtime, which a cache hit
   * refreshes) first. Never evicted: files being written (temp names) and artifacts this
   * process is fetching; an artifact in use elsewhere is a file already open, so unlinking it is safe.
   */
  cacheBytes: number;
  /** one line per notable event (a corrupt cached copy dropped); silent when unset */
  log?: (line: string) => void;
};

export class ArtifactStore {
  /** fetches in progress in this process, by hash: a second caller waits for the first */
  private readonly inflight = new Map<string, Promise<string>>();
  /** cache files this process is writing or handing out right now: trim leaves them alone */
  private readonly pinned = new Map<string, number>();

  constructor(readonly opts: ArtifactStoreOptions) {}

  get backend(): ArtifactBackend {
    return this.opts.backend;
  }

  /**
   * Publish a file: hash it, store it in the backend, and keep it in this host's cache.
   * With `replace`, the backend's copy is rewritten even if it has one (a corrupt copy's repair).
   */
  async publishFile(file: string, opts: PutOptions = {}): Promise<ArtifactRef> {
    return this.publishStream(createReadStream(file, { highWaterMark: READ_BYTES }), opts);
  }

  /**
   * Publish a stream: spooled into this host's cache dir while hashing, so what is stored is
   * exactly what was hashed (a source file changing meanwhile cannot put other bytes under the
   * hash), uploaded from there, and kept as the cached copy (a local backend needs none).
   */
  async publishStream(body: Readable, opts: PutOptions = {}): Promise<ArtifactRef> {
    await fs.mkdir(this.opts.cacheDir, { recursive: true });
    const tmp = this.tempPath();
    try {
      const h = hashing();
      await pipeline(body, h.through, createWriteStream(tmp, { mode: 0o600 }));
      const ref = h.digest();
      // always through put: a backend that has the bytes marks them published again (gc's grace)
      await this.opts.backend.put(ref, () => createReadStream(tmp, { highWaterMark: READ_BYTES }), opts);
      if (!this.opts.backend.localPath) await this.adopt(tmp, ref.sha256);
      return ref;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /** Publish bytes already in memory (small artifacts: logs, manifests). */
  async publishBuffer(bytes: Buffer, opts: PutOptions = {}): Promise<ArtifactRef> {
    const ref = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    await this.opts.backend.put(ref, () => Readable.from([bytes]), opts);
    if (!this.opts.backend.localPath) {
      await fs.mkdir(this.opts.cacheDir, { recursive: true });
      const tmp = this.tempPath();
      try {
        await fs.writeFile(tmp, bytes, { mode: 0o600 });
        await this.adopt(tmp, ref.sha256);
      } finally {
        await fs.rm(tmp, { force: true });
      }
    }
    return ref;
  }

  /**
   * A verified local file holding the artifact: this host's cached copy when its bytes still
   * hash to `sha256`, else fetched again from the backend. A cached copy that fails is dropped
   * and re-fetched once; a fetched copy that fails is `ArtifactCorruptError`. Concurrent
   * fetches of one hash in this process share one download.
   */
  fetch(sha256: string): Promise<string> {
    if (!SHA256_HEX.test(sha256)) return Promise.reject(new Error(`not an artifact hash: ${JSON.stringify(sha256)} (64 lowercase hex digits)`));
    let p = this.inflight.get(sha256);
    if (!p) {
      p = this.fetchOnce(sha256).finally(() => this.inflight.delete(sha256));
      this.inflight.set(sha256, p);
    }
    return p;
  }

  private async fetchOnce(sha256: string): Promise<string> {
    const backend = this.opts.backend;
    if (backend.localPath) {
      const local = backend.localPath(sha256);
      const got = local ? await sha256OfFile(local).catch((e: unknown) => (isMissing(e) ? undefined : Promise.reject(e))) : undefined;
      if (!local || !got) throw new ArtifactMissingError(sha256, backend.describe());
      if (got.sha256 !== sha256) throw new ArtifactCorruptError(sha256, got.sha256, backend.describe());
      return local;
    }
    const file = this.cachePath(sha256);
    this.pin(file);
    try {
      const cached = await sha256OfFile(file).catch((e: unknown) => (isMissing(e) ? undefined : { sha256: `unreadable (${(e as Error).message})`, size: 0 }));
      if (cached?.sha256 === sha256) {
        const now = new Date();
        // Gone meanwhile (another process on this host trimmed it): fetch it again below.
        const touched = await fs.utimes(file, now, now).then(
          () => true,
          (e: unknown) => (isMissing(e) ? false : Promise.reject(e)),
        );
        if (touched) return file;
      } else if (cached) {
        this.opts.log?.(
          `artifact ${sha256}: the cached copy ${file} ${cached.sha256.startsWith('unreadable') ? 'is' : 'hashes to'} ${cached.sha256}; dropped, fetching it again from ${backend.describe()}`,
        );
        await fs.rm(file, { force: true });
      }
      await fs.mkdir(this.opts.cacheDir, { recursive: true });
      const tmp = this.tempPath();
      try {
        const h = hashing();
        await pipeline(await backend.get(sha256), h.through, createWriteStream(tmp, { mode: 0o600 }));
        const got = h.digest();
        if (got.sha256 !== sha256) throw new ArtifactCorruptError(sha256, got.sha256, backend.describe());
        await fs.rename(tmp, file);
      } finally {
        await fs.rm(tmp, { force: true });
      }
      await this.trim();
      return file;
    } finally {
      this.unpin(file);
    }
  }

  cachePath(sha256: string): string {
    return path.join(this.opts.cacheDir, sha256);
  }

  /** A temp name in the cache no other writer (process, or call in this one) uses; `<pid>` lets trim find a dead writer's leftovers. */
  private tempPath(): string {
    return path.join(this.opts.cacheDir, `.${process.pid}.${randomUUID()}.tmp`);
  }

  /** Move a complete temp file in as the cached copy of `sha256`. */
  private async adopt(tmp: string, sha256: string): Promise<void> {
    const file = this.cachePath(sha256);
    this.pin(file);
    try {
      await fs.rename(tmp, file);
      await this.trim();
    } finally {
      this.unpin(file);
    }
  }

  private pin(file: string) {
    this.pinned.set(file, (this.pinned.get(file) ?? 0) + 1);
  }

  private unpin(file: string) {
    const n = (this.pinned.get(file) ?? 1) - 1;
    if (n > 0) this.pinned.set(file, n);
    else this.pinned.delete(file);
  }

  /**
   * Evict least recently used cached artifacts until the cache fits its bound, never `keep` or
   * an artifact this process is fetching; remove temp files left by writers that died.
   */
  /** Drop this host's cached copy of an artifact (after it was deleted from the backend). */
  async evict(sha256: string): Promise<void> {
    if (!SHA256_HEX.test(sha256) || this.pinned.has(this.cachePath(sha256))) return;
    await fs.rm(this.cachePath(sha256), { force: true });
  }

  async trim(keep?: string): Promise<void> {
    const names = await fs.readdir(this.opts.cacheDir).catch(() => [] as string[]);
    const entries = [];
    for (const name of names) {
      const file = path.join(this.opts.cacheDir, name);
      const tmp = /^\.(\d+)\.[0-9a-f-]+\.tmp$/.exec(name);
      if (tmp) {
        if (!alive(Number(tmp[1]))) await fs.rm(file, { force: true });
        continue;
      }
      if (!SHA256_HEX.test(name)) continue;
      const st = await fs.stat(file).catch(() => undefined);
      if (st) entries.push({ file, size: st.size, used: st.mtimeMs });
    }
    let total = entries.reduce((s, e) => s + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= this.opts.cacheBytes) break;
      if (e.file === keep || this.pinned.has(e.file)) continue;
      await fs.rm(e.file, { force: true });
      total -= e.size;
    }
  }

  async close(): Promise<void> {
    await this.opts.backend.close?.();
  }
}
