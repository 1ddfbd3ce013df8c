import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * A sandbox's writable space: one tmpfs per sandbox, mounted on the host with `size=` so
 * the scratch cap is enforced by the kernel (ENOSPC), holding `work/` (→ /work) and
 * `tmp/` (→ /tmp). tmpfs pages are charged to the sandbox's memory cgroup too.
 * Without root it degrades to a plain directory and reports `disk: none`.
 */
export const SCRATCH_FSNAME = 'crucible-scratch';

export type Scratch = { root: string; work: string; tmp: string; capped: boolean };

/**
 * `mountWith`: a cheaper way to mount (the launcher, see launcher.ts), used as root; the
 * scratch is then ready when `ready` settles. Without it, mount(8) runs synchronously.
 */
export function createScratch(
  dir: string, diskMb: number, hostUid: number, hostGid: number,
  mountWith?: (root: string, sizeMb: number, uid: number, gid: number) => Promise<void>,
): { scratch: Scratch; ready: Promise<void> } {
  const root = path.join(dir, 'scratch');
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const paths = { root, work: path.join(root, 'work'), tmp: path.join(root, 'tmp') };
  if (process.getuid?.() === 0 && mountWith) {
    return { scratch: { ...paths, capped: true }, ready: mountWith(root, diskMb, hostUid, hostGid) };
  }
  let capped = false;
  if (process.getuid?.() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${diskMb}m,mode=0755,nosuid,nodev`, SCRATCH_FSNAME, root], { stdio: ['ignore', 'ignore', 'pipe'] });
    capped = true;
  }
  const s = { ...paths, capped };
  for (const d of [s.work, s.tmp]) {
    mkdirSync(d, { mode: d === s.tmp ? 0o1777 : 0o755 });
    if (process.getuid?.() === 0) chownSync(d, hostUid, hostGid);
  }
  return { scratch: s, ready: Promise.resolve() };
}

/** Empty work/ and tmp/ between uses (the mount stays). */
export function wipeScratch(s: Scratch): void {
  for (const d of [s.work, s.tmp]) {
    for (const name of readdirSync(d)) rmSync(path.join(d, name), { recursive: true, force: true });
  }
}

export function mountedScratches(): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f[0] === SCRATCH_FSNAME && f[1])
    .map((f) => f[1]!.replace(/\\040/g, ' '));
}

export function unmountScratch(root: string): void {
  if (!mountedScratches().includes(root)) return;
  try {
    execFileSync('umount', [root], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch {
    try {
      execFileSync('umount', ['-l', root], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      // a concurrent sweeper (another worker starting) may have unmounted it first
      if (mountedScratches().includes(root) && existsSync(root)) throw e;
    }
  }
}
