import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentHashProblem, environmentNameProblem } from '@/core/environments';
import { SandboxError } from '../types';
import { hashHex, type Environment } from './env-manifest';
import { verifyEnvironmentFull, writeSignatures } from './env-verify';

/**
 * The content-addressed environment store: `<store>/<hash>/rootfs` is what sandboxes bind
 * read-only, with its `manifest.json` and `meta.json`; a name (`default`, `py311`…) is a ref
 * (`<store>/refs/<name>.json`) to a hash. Every function takes the store's directory: the
 * platform's is `envStoreDir()` (db/open-database.ts), by the rule of `storeDirFor`.
 */

/** Where built environments live for a data directory: `configured` (CRUCIBLE_ENV_STORE) if set, else `<dataDir>/envs`. */
export function storeDirFor(dataDir: string, configured?: string): string {
  return path.resolve(configured ?? path.join(dataDir, 'envs'));
}

/** Where a name's ref lives; a name that could leave refs/ (a "/", "..", NUL) is refused first. */
function refPath(storeDir: string, name: string) {
  const problem = environmentNameProblem(name);
  if (problem) throw new SandboxError(problem, 'config');
  return path.join(storeDir, 'refs', `${name}.json`);
}

/**
 * The store's own files only: `p` with every symlink resolved must lie inside the store
 * root (itself resolved), so a ref, hash directory or rootfs planted as a link elsewhere
 * (e.g. to the host's "/") is refused rather than mounted as a sandbox root.
 */
function insideStore(storeDir: string, p: string, what: string): string {
  const root = realpathSync(storeDir);
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    throw new SandboxError(`${what} ${p} is missing from the environment store; rebuild it with \`crucible env build\``, 'config');
  }
  if (real !== root && !real.startsWith(`${root}${path.sep}`)) {
    throw new SandboxError(
      `${what} ${p} resolves to ${real}, outside the environment store ${root}; refusing it (remove the link and rebuild with \`crucible env build\`)`,
      'config',
    );
  }
  return real;
}

function ensureStore(storeDir: string): void {
  for (const d of [storeDir, path.join(storeDir, 'refs')]) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755); // sandbox processes run as an unprivileged uid and must traverse it
  }
}

/** A fresh, private staging directory inside the store (same filesystem, so installing it is a rename). */
export function stagingDir(storeDir: string): string {
  ensureStore(storeDir);
  const staging = path.join(storeDir, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(staging, { recursive: true });
  chmodSync(staging, 0o755);
  return staging;
}

/**
 * Move a staged environment (`rootfs/`, `manifest.json`, `meta.json`, already checked to be
 * `hash`) into the store under its hash and point `name` at it. Consumes `staging`.
 */
export function installStaged(staging: string, name: string, hash: string, storeDir: string): Environment {
  const finalDir = path.join(storeDir, hashHex(hash));
  if (existsSync(finalDir) && !storedCopyIntact(finalDir, hash)) {
    // a tampered copy under the same hash is replaced by the fresh one
    rmSync(finalDir, { recursive: true, force: true });
  }
  if (existsSync(finalDir)) rmSync(staging, { recursive: true, force: true });
  else {
    try {
      renameSync(staging, finalDir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another builder won the race with identical content
    }
  }
  writeSignatures(finalDir);
  const ref = refPath(storeDir, name);
  writeFileSync(`${ref}.tmp`, JSON.stringify({ name, hash }));
  renameSync(`${ref}.tmp`, ref);
  return loadEnvironment(name, storeDir);
}

/** Whether `name` has been built (or fetched) into this host's store. */
export function environmentBuilt(name: string, storeDir: string): boolean {
  return existsSync(refPath(storeDir, name));
}

function storedCopyIntact(dir: string, hash: string): boolean {
  try {
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Environment;
    return verifyEnvironmentFull({ ...meta, name: '', hash, dir, rootfs: path.join(dir, 'rootfs'), manifestPath: path.join(dir, 'manifest.json') }).ok;
  } catch {
    return false;
  }
}

export function loadEnvironment(name: string, storeDir: string): Environment {
  const ref = refPath(storeDir, name);
  if (!existsSync(ref)) {
    throw new SandboxError(`environment "${name}" is not built in ${storeDir}; run \`crucible env build SPEC\` (or use --env default)`, 'config');
  }
  insideStore(storeDir, ref, `ref of environment "${name}"`);
  const { hash } = JSON.parse(readFileSync(ref, 'utf8')) as { hash: unknown };
  const problem = contentHashProblem(hash);
  if (problem) throw new SandboxError(`${ref}: ${problem}; rebuild the environment with \`crucible env build\``, 'config');
  const dir = path.join(storeDir, hashHex(hash as string));
  for (const [p, what] of [
    [dir, 'environment directory'],
    [path.join(dir, 'rootfs'), 'rootfs'],
    [path.join(dir, 'meta.json'), 'meta.json'],
    [path.join(dir, 'manifest.json'), 'manifest.json'],
  ] as const)
    insideStore(storeDir, p, what);
  const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Omit<Environment, 'name' | 'dir' | 'rootfs' | 'manifestPath'>;
  return { ...meta, name, hash: hash as string, dir, rootfs: path.join(dir, 'rootfs'), manifestPath: path.join(dir, 'manifest.json') };
}

export function listEnvironments(storeDir: string): Environment[] {
  const refs = path.join(storeDir, 'refs');
  if (!existsSync(refs)) return [];
  // a file whose name is not a valid environment name is no ref of ours (loading it would refuse)
  return readdirSync(refs)
    .filter((f) => f.endsWith('.json') && !environmentNameProblem(f.slice(0, -5)))
    .map((f) => loadEnvironment(f.slice(0, -5), storeDir));
}
