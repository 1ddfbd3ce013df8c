import { createHash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readFileSync, readSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { SandboxError } from '../types';

/**
 * What an environment is: an immutable root filesystem whose manifest (path, type, mode,
 * size, sha256 of every entry) digests to the environment hash. Describing a tree
 * (`scanRootfs`), digesting the description and reading a stored one; building, storing and
 * verifying are env-build.ts, env-store.ts and env-verify.ts.
 */

export type ManifestEntry =
  | { path: string; type: 'file'; mode: number; size: number; sha256: string }
  | { path: string; type: 'dir'; mode: number }
  | { path: string; type: 'symlink'; target: string };

export type Environment = {
  name: string;
  hash: string;
  dir: string;
  rootfs: string;
  manifestPath: string;
  fileCount: number;
  totalBytes: number;
  toolchainLock: Record<string, string>;
  builtAt: string;
};

export const hashHex = (hash: string) => hash.replace(/^sha256:/, '');

export function digestManifest(entries: ManifestEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries) {
    if (e.type === 'file') h.update(`f ${e.mode.toString(8)} ${e.size} ${e.sha256} ${e.path}\n`);
    else if (e.type === 'dir') h.update(`d ${e.mode.toString(8)} ${e.path}\n`);
    else h.update(`l ${e.target} ${e.path}\n`);
  }
  return `sha256:${h.digest('hex')}`;
}

function sha256File(file: string): string {
  const h = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** Walk a rootfs and describe every entry, sorted by path. */
export function scanRootfs(rootfs: string): ManifestEntry[] {
  const out: ManifestEntry[] = [];
  const walk = (rel: string) => {
    const abs = path.join(rootfs, rel);
    for (const name of readdirSync(abs).sort()) {
      const r = rel === '/' ? `/${name}` : `${rel}/${name}`;
      const st = lstatSync(path.join(rootfs, r));
      if (st.isSymbolicLink()) out.push({ path: r, type: 'symlink', target: readlinkSync(path.join(rootfs, r)) });
      else if (st.isDirectory()) {
        out.push({ path: r, type: 'dir', mode: st.mode & 0o7777 });
        walk(r);
      } else if (st.isFile()) {
        out.push({ path: r, type: 'file', mode: st.mode & 0o7777, size: st.size, sha256: sha256File(path.join(rootfs, r)) });
      } else throw new SandboxError(`environment contains a special file ${r}; only files, dirs and symlinks are allowed`, 'config');
    }
  };
  walk('/');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A stored environment's manifest. */
export function readManifest(env: Pick<Environment, 'manifestPath'>): { hash: string; entries: ManifestEntry[] } {
  return JSON.parse(readFileSync(env.manifestPath, 'utf8')) as { hash: string; entries: ManifestEntry[] };
}
