import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { ArtifactMissingError, type ArtifactBackend, type ArtifactRef } from '../artifact-store';

/** A directory on this host (`<data>/artifacts/store`): the embedded single-host default. */
export class LocalArtifactBackend implements ArtifactBackend {
  readonly name = 'local' as const;
  constructor(readonly root: string) {}

  private file(sha256: string) {
    return path.join(this.root, sha256.slice(0, 2), sha256);
  }

  async put(ref: ArtifactRef, body: () => Readable): Promise<void> {
    const file = this.file(ref.sha256);
    if (existsSync(file)) return;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await pipeline(body(), createWriteStream(tmp, { mode: 0o640 }));
      await fs.rename(tmp, file);
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  async get(sha256: string): Promise<Readable> {
    const file = this.file(sha256);
    if (!existsSync(file)) throw new ArtifactMissingError(sha256, this.describe());
    return createReadStream(file);
  }

  async has(sha256: string): Promise<boolean> {
    return existsSync(this.file(sha256));
  }

  localPath(sha256: string): string | undefined {
    const file = this.file(sha256);
    return existsSync(file) ? file : undefined;
  }

  describe(): string {
    return `local (${this.root})`;
  }
}
