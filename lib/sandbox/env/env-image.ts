import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { contentHashProblem, environmentNameProblem } from '@/core/environments';
import { SandboxError } from '../types';
import type { Environment } from './env-manifest';
import { installStaged, stagingDir } from './env-store';
import { verifyEnvironmentFull } from './env-verify';

/**
 * An environment as one file (its image): a tar of `rootfs/`, `manifest.json` and `meta.json`,
 * published to the artifact store so another worker host can fetch it by hash instead of
 * building it from a spec against its own packages (docs/scale-out.md). The image's sha256
 * names the file; the environment's content hash (its manifest digest) is what a fetched image
 * must reproduce before it is installed, so a tampered or mislabelled image never runs code.
 */

const run = promisify(execFile);

/** Write `env`'s image to `outFile` (GNU tar, entries sorted, owners numeric 0, mtimes kept for Python's bytecode caches). */
export async function packEnvironmentImage(env: Environment, outFile: string): Promise<void> {
  await run(
    'tar',
    [
      '--sort=name',
      '--numeric-owner',
      '--owner=0',
      '--group=0',
      '--format=posix',
      '--pax-option=delete=atime,delete=ctime',
      '-cf',
      outFile,
      '-C',
      env.dir,
      'rootfs',
      'manifest.json',
      'meta.json',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

/**
 * Install an image under `name`, refusing it unless its files hash to `expectedHash` (the
 * environment's baseline). GNU tar refuses members with `..` or absolute names and delays
 * symlinks that could redirect later members; the full re-hash then refuses anything the
 * manifest does not list (extra files, special files, changed modes).
 */
export async function installEnvironmentImage(name: string, imageFile: string, expectedHash: string, storeDir: string): Promise<Environment> {
  const nameProblem = environmentNameProblem(name);
  if (nameProblem) throw new SandboxError(nameProblem, 'config');
  const hashProblem = contentHashProblem(expectedHash);
  if (hashProblem) throw new SandboxError(`environment "${name}": ${hashProblem}`, 'config');
  const staging = stagingDir(storeDir);
  try {
    await run('tar', ['-xpf', imageFile, '-C', staging, '--no-same-owner', '--delay-directory-restore'], { maxBuffer: 16 * 1024 * 1024 }).catch(
      (e: Error & { stderr?: string }) => {
        throw new SandboxError(
          `environment image for "${name}" is not a readable tar archive: ${(e.stderr || e.message).trim().split('\n')[0]}`,
          'env_mismatch',
        );
      },
    );
    for (const f of ['rootfs', 'manifest.json', 'meta.json']) {
      if (!existsSync(path.join(staging, f)))
        throw new SandboxError(`environment image for "${name}" lacks ${f}; publish it again with \`crucible env publish ${name}\``, 'env_mismatch');
    }
    const manifest = JSON.parse(readFileSync(path.join(staging, 'manifest.json'), 'utf8')) as { hash?: unknown };
    if (manifest.hash !== expectedHash) {
      throw new SandboxError(
        `environment image for "${name}" is of ${String(manifest.hash)}, not the baseline ${expectedHash}; publish the baseline build with \`crucible env publish ${name}\` on a host that has it`,
        'env_mismatch',
      );
    }
    const meta = JSON.parse(readFileSync(path.join(staging, 'meta.json'), 'utf8')) as Omit<Environment, 'name' | 'dir' | 'rootfs' | 'manifestPath'>;
    const staged: Environment = {
      ...meta,
      name,
      hash: expectedHash,
      dir: staging,
      rootfs: path.join(staging, 'rootfs'),
      manifestPath: path.join(staging, 'manifest.json'),
    };
    const v = verifyEnvironmentFull(staged);
    if (!v.ok) {
      throw new SandboxError(`environment image for "${name}" does not match its manifest (${v.problems.slice(0, 5).join('; ')}); refusing it`, 'env_mismatch');
    }
    return installStaged(staging, name, expectedHash, storeDir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}
