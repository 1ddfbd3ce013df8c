import { execFileSync, type StdioOptions } from 'node:child_process';
import { chownSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * A sandbox's writable space: one tmpfs per sandbox, mounted on the host with `size=` so
 * the scratch cap is enforced by the kernel (ENOSPC), holding `work/` (→ /work) and
 * `tmp/` (→ /tmp). tmpfs pages are charged to the sandbox's memory cgroup too.
 * Without root it degrades to a plain directory and reports `disk: none`.
 *
 * As root it also holds `root/`, what runtimes mount as the sandbox's `/`: the
 * environment's rootfs through a read-only overlay, so /proc/self/mountinfo inside shows
 * "/" and /proc/self/fd/N instead of the host path of the store (launcher.c,
 * mount_root_view). Nested in the scratch mount, it goes away with it (`umount -R`).
 */
export const SCRATCH_FSNAME = 'crucible-scratch';
const ROOT_VIEW_FSNAME = 'crucible-root';

/** The rootfs directory (device, inode) a sandbox's view shows: a store rebuild replaces it. */
export type RootPin = { dev: bigint; ino: bigint };

export type Scratch = {
  root: string;
  work: string;
  tmp: string;
  capped: boolean;
  /** what the runtime mounts as / : root/ (the view) as root, else the rootfs itself */
  view: string;
  /** set once the view is mounted */
  pin?: RootPin;
};

/**
 * `mountWith`: a cheaper way to mount (the launcher, see launcher.ts), used as root; the
 * scratch is then ready when `ready` settles. Without it, mount(8) runs synchronously.
 */
export function createScratch(
  dir: string,
  diskMb: number,
  hostUid: number,
  hostGid: number,
  rootfs: string,
  mountWith?: (root: string, sizeMb: number, uid: number, gid: number, rootfs: string) => Promise<RootPin>,
): { scratch: Scratch; ready: Promise<void> } {
  const root = path.join(dir, 'scratch');
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const paths = { root, work: path.join(root, 'work'), tmp: path.join(root, 'tmp') };
  const asRoot = process.getuid?.() === 0;
  if (asRoot && mountWith) {
    const s: Scratch = { ...paths, capped: true, view: path.join(root, 'root') };
    return { scratch: s, ready: mountWith(root, diskMb, hostUid, hostGid, rootfs).then((pin) => void (s.pin = pin)) };
  }
  let capped = false;
  if (asRoot) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${diskMb}m,mode=0755,nosuid,nodev`, SCRATCH_FSNAME, root], { stdio: ['ignore', 'ignore', 'pipe'] });
    capped = true;
  }
  const s: Scratch = { ...paths, capped, view: asRoot ? path.join(root, 'root') : rootfs };
  for (const d of [s.work, s.tmp]) {
    mkdirSync(d, { mode: d === s.tmp ? 0o1777 : 0o755 });
    if (asRoot) chownSync(d, hostUid, hostGid);
  }
  if (asRoot) s.pin = mountRootView(root, rootfs);
  return { scratch: s, ready: Promise.resolve() };
}

/** mount(8) variant of launcher.c's mount_root_view (used without the launcher). */
function mountRootView(root: string, rootfs: string): RootPin {
  const view = path.join(root, 'root');
  const empty = path.join(root, '.empty');
  mkdirSync(view, { mode: 0o755 });
  mkdirSync(empty, { mode: 0o755 });
  const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  const rfd = openSync(rootfs, dirFlags);
  const efd = openSync(empty, dirFlags);
  try {
    const st = fstatSync(rfd, { bigint: true });
    // the child gets them as fds 3 and 4, which is all the overlay's options will show
    const stdio: StdioOptions = ['ignore', 'ignore', 'pipe', rfd, efd];
    try {
      execFileSync('mount', ['-t', 'overlay', '-o', 'ro,nosuid,nodev,lowerdir=/proc/self/fd/3:/proc/self/fd/4', ROOT_VIEW_FSNAME, view], { stdio });
    } catch {
      execFileSync('mount', ['--bind', '/proc/self/fd/3', view], { stdio }); // no overlayfs: a plain bind, path visible
    }
    return { dev: st.dev, ino: st.ino };
  } finally {
    closeSync(rfd);
    closeSync(efd);
  }
}

/** Why the view no longer shows the environment's rootfs (the store replaced it), if so. */
export function rootViewStale(s: Scratch, rootfs: string): string | undefined {
  if (!s.pin) return undefined;
  const st = lstatSync(rootfs, { bigint: true, throwIfNoEntry: false });
  if (st && st.dev === s.pin.dev && st.ino === s.pin.ino) return undefined;
  return `${rootfs} was replaced (or removed) after this sandbox mounted it; a new sandbox will use the current one`;
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
    // -R: the rootfs view is mounted inside
    execFileSync('umount', ['-R', root], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch {
    try {
      execFileSync('umount', ['-l', root], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      // a concurrent sweeper (another worker starting) may have unmounted it first
      if (mountedScratches().includes(root) && existsSync(root)) throw e;
    }
  }
}
