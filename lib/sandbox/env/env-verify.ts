import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { digestManifest, readManifest, scanRootfs, type Environment, type ManifestEntry } from './env-manifest';

/**
 * Verifying a stored environment against its manifest before sandboxes mount it: the fast
 * check (stat signatures against a baseline) before every start, falling through to the full
 * re-hash when anything differs (docs/sandbox.md).
 */

/** Stat signature of one entry: changes on any write, chmod, rename, link or replace. */
type Sig = string;
function sigOf(abs: string): Sig | undefined {
  try {
    const s = lstatSync(abs, { bigint: true });
    return `${s.ino}:${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Record the stat signature of the rootfs root and every entry, the fast check's baseline. */
export function writeSignatures(dir: string): void {
  const rootfs = path.join(dir, 'rootfs');
  const { entries } = readManifest({ manifestPath: path.join(dir, 'manifest.json') });
  const sigs: Sig[] = [sigOf(rootfs)!, ...entries.map((e) => sigOf(path.join(rootfs, e.path)) ?? '')];
  writeFileSync(path.join(dir, 'signatures.json'), JSON.stringify(sigs));
}

export type VerifyResult = { ok: boolean; mode: 'fast' | 'full'; problems: string[]; durationMs: number };

export type FastBaseline = { paths: string[]; sigs: Sig[] };
const baselines = new Map<string, FastBaseline>();

/** The fast check's baseline for an environment (exported for the off-thread checker). */
export function baselineFor(env: Environment): FastBaseline {
  let b = baselines.get(env.dir);
  if (!b) {
    const { entries } = readManifest(env);
    b = {
      paths: [env.rootfs, ...entries.map((e) => path.join(env.rootfs, e.path))],
      sigs: JSON.parse(readFileSync(path.join(env.dir, 'signatures.json'), 'utf8')) as Sig[],
    };
    baselines.set(env.dir, b);
  }
  return b;
}

/**
 * The check before every start: lstat every entry (and every directory, whose ctime moves
 * when an entry is added, removed or renamed) and compare with the baseline signatures.
 * Any difference falls through to a full re-hash, which decides (and re-baselines when
 * the content is still identical, e.g. after a `touch`).
 */
export function verifyEnvironmentFast(env: Environment): VerifyResult {
  const t0 = performance.now();
  const b = baselineFor(env);
  for (let i = 0; i < b.paths.length; i++) {
    if (sigOf(b.paths[i]!) !== b.sigs[i]) {
      const full = verifyEnvironmentFull(env);
      return { ...full, durationMs: performance.now() - t0 };
    }
  }
  return { ok: true, mode: 'fast', problems: [], durationMs: performance.now() - t0 };
}

/** Re-hash every file and compare the whole tree with the manifest. */
export function verifyEnvironmentFull(env: Environment): VerifyResult {
  const t0 = performance.now();
  const problems: string[] = [];
  const manifest = readManifest(env);
  let actual: ManifestEntry[] = [];
  try {
    actual = scanRootfs(env.rootfs);
  } catch (e) {
    problems.push(`cannot scan rootfs: ${(e as Error).message}`);
  }
  const want = new Map(manifest.entries.map((e) => [e.path, e]));
  const have = new Map(actual.map((e) => [e.path, e]));
  for (const [p, e] of want) {
    const a = have.get(p);
    if (!a) problems.push(`removed: ${p}`);
    else if (JSON.stringify(a) !== JSON.stringify(e)) problems.push(`modified: ${p}`);
  }
  for (const p of have.keys()) if (!want.has(p)) problems.push(`added: ${p}`);
  if (problems.length === 0 && digestManifest(actual) !== env.hash) problems.push('manifest digest differs from the environment hash');
  const ok = problems.length === 0;
  if (ok) {
    writeSignatures(env.dir);
    baselines.delete(env.dir);
  }
  return { ok, mode: 'full', problems: problems.slice(0, 50), durationMs: performance.now() - t0 };
}
