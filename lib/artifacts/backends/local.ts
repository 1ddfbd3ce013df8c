import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ArtifactMissingError, SHA256_HEX, type ArtifactBackend, type ArtifactRef, type PutOptions, type StoredArtifact } from '../artifact-store';

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** A directory on this host (`<data>/artifacts/store`): the embedded single-host default. */
export class LocalArtifactBackend implements ArtifactBackend {
  readonly name = 'local' as const;
  constructor(readonly root: string) {}

  private file(sha256: string) {
    return path.join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Written to a unique temp name, synced, then renamed in: a reader sees the whole artifact or none, also after a crash. */
  async put(ref: ArtifactRef, body: () => Readable, opts: PutOptions = {}): Promise<void> {
    const file = this.file(ref.sha256);
    if (!opts.replace && (await this.has(ref.sha256))) {
      const now = new Date();
      await fs.utimes(file, now, now).catch(() => undefined); // published again: not garbage yet
      return;
    }
    const dir = path.dirname(file);
    await fs.mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `.${ref.sha256}.${process.pid}.${randomUUID()}.tmp`);
    try {
      // `flush`: fsync before close, so a recorded hash never names an empty file after a power loss
      await pipeline(body(), createWriteStream(tmp, { mode: 0o640, flush: true }));
      const st = await fs.stat(tmp);
      if (st.size !== ref.size) throw new Error(`artifact ${ref.sha256}: wrote ${st.size} bytes, expected ${ref.size}`);
      await fs.rename(tmp, file);
      const d = await fs.open(dir, 'r');
      await d.sync().finally(() => d.close());
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  async get(sha256: string): Promise<Readable> {
    const file = this.file(sha256);
    // open first: a missing file is ArtifactMissingError here, not a stream error later
    const fh = await fs.open(file, 'r').catch((e: unknown) => Promise.reject(isMissing(e) ? new ArtifactMissingError(sha256, this.describe()) : e));
    return fh.createReadStream({ highWaterMark: 1024 * 1024 });
  }

  async has(sha256: string): Promise<boolean> {
    return fs.access(this.file(sha256)).then(
      () => true,
      (e: unknown) => (isMissing(e) ? false : Promise.reject(e)),
    );
  }

  async *list(): AsyncIterable<StoredArtifact> {
    const dirs = await fs.readdir(this.root).catch((e: unknown) => (isMissing(e) ? [] : Promise.reject(e)));
    for (const d of dirs.sort()) {
      if (!/^[0-9a-f]{2}$/.test(d)) continue;
      for (const name of (await fs.readdir(path.join(this.root, d))).sort()) {
        if (!SHA256_HEX.test(name)) continue; // temp files of puts in flight
        const st = await fs.stat(path.join(this.root, d, name)).catch(() => undefined);
        if (st) yield { sha256: name, size: st.size, publishedAt: st.mtime };
      }
    }
  }

  async delete(sha256: string): Promise<void> {
    await fs.rm(this.file(sha256), { force: true });
  }

  localPath(sha256: string): string | undefined {
    const file = this.file(sha256);
    return existsSync(file) ? file : undefined;
  }

  describe(): string {
    return `local (${this.root})`;
  }
}
