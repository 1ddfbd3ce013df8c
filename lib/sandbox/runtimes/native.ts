import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The sandbox layer's two small C programs (supervisor.c, launcher.c, sharing fdio.h),
 * built once per source version with the host's gcc as static binaries under `<dir>/bin/`.
 * Static: the supervisor runs inside environments that have no libc of their own.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
// Warnings are errors: a warning in these programs (they run as root and as the sandbox's
// PID 1) is a bug to fix, not to ship. Part of the binary's hash, like the sources.
const CFLAGS = ['-static', '-O2', '-pthread', '-Wall', '-Wextra', '-Werror'];
const built = new Map<string, { binary?: string; reason?: string }>();

/** Path of the compiled program, compiling it on first use; `reason` says why not. */
export function nativeBinary(source: 'supervisor.c' | 'launcher.c' | 'microvm-init.c', dir: string, cc: string): { binary?: string; reason?: string } {
  const known = built.get(source);
  if (known) return known;
  let result: { binary?: string; reason?: string };
  const file = path.join(HERE, source);
  try {
    // the header both programs include and the flags are part of what the binary is built from
    const tag = createHash('sha256')
      .update(readFileSync(file))
      .update(readFileSync(path.join(HERE, 'fdio.h')))
      .update(CFLAGS.join(' '))
      .update(process.arch)
      .digest('hex')
      .slice(0, 16);
    const binDir = path.join(dir, 'bin');
    const binary = path.join(binDir, `crucible-${source.replace(/\.c$/, '')}-${tag}`);
    result = { binary };
    if (!existsSync(binary)) {
      mkdirSync(binDir, { recursive: true, mode: 0o755 });
      const tmp = `${binary}.${process.pid}.tmp`;
      const r = spawnSync(cc, [...CFLAGS, '-o', tmp, file], { encoding: 'utf8' });
      if (r.error || r.status !== 0) {
        rmSync(tmp, { force: true });
        result = {
          reason: `cannot compile ${file} with ${cc} ${CFLAGS.join(' ')} (${r.error?.message ?? r.stderr.trim().split('\n').slice(-3).join(' ')}); install gcc and libc6-dev, and fix any warning the compiler reports (warnings are errors)`,
        };
      } else {
        chmodSync(tmp, 0o755); // bwrap runs the supervisor as the sandbox's host uid
        renameSync(tmp, binary); // concurrent builders converge on the same content
      }
    }
  } catch (e) {
    result = { reason: `${source} unavailable: ${(e as Error).message}` };
  }
  built.set(source, result);
  return result;
}
