import { closeSync, constants, fchownSync, fstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { SandboxError } from './types';

/**
 * File access under a sandbox's scratch directory that never follows a link the sandbox
 * planted. Sandboxed code owns /work and /tmp and can put a symlink anywhere in them (e.g.
 * `/work/out -> /etc`); a host-side `mkdir -p` + open by path, running as root, would then
 * create and write host files. Instead we walk one component at a time from a directory fd,
 * like `openat(dirfd, name, O_NOFOLLOW|O_DIRECTORY)`: Node has no openat, so each step opens
 * `/proc/self/fd/<dirfd>/<name>`, which the kernel resolves from that directory (the magic
 * link itself names the directory, not a path), and O_NOFOLLOW refuses a symlink at `name`.
 */

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO planted at the destination fails (ENXIO) instead of blocking the host
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const at = (dirFd: number, name: string) => `/proc/self/fd/${dirFd}/${name}`;

function refuse(shown: string, e: NodeJS.ErrnoException): never {
  const why =
    e.code === 'ELOOP' || e.code === 'ENOTDIR' || e.code === 'EMLINK'
      ? `${shown} is a symbolic link or not a directory; files are only put through real directories under /work and /tmp`
      : `${shown}: ${e.code ?? e.message}`;
  throw new SandboxError(why, 'config');
}

/**
 * Open the directory `parts` below `root` (a host path the sandbox cannot change), each
 * component without following links; `create` makes missing ones (mode 0755, owned by
 * this process as before). Returns an fd the caller closes. `shown` maps a depth to the
 * sandbox-side path.
 */
function openDirBeneath(root: string, parts: string[], shown: (depth: number) => string, create = false): number {
  let fd = openSync(root, DIR_FLAGS);
  try {
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      if (!name || name === '.' || name === '..' || name.includes('/'))
        throw new SandboxError(`invalid path component ${JSON.stringify(name)} in ${shown(parts.length)}`, 'config');
      if (create) {
        try {
          mkdirSync(at(fd, name), 0o755);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') refuse(shown(i + 1), e as NodeJS.ErrnoException);
        }
      }
      let next: number;
      try {
        next = openSync(at(fd, name), DIR_FLAGS);
      } catch (e) {
        refuse(shown(i + 1), e as NodeJS.ErrnoException);
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

export type Beneath = {
  /** host directory the sandbox sees as `shownRoot` (e.g. the scratch's work/ as /work) */
  root: string;
  shownRoot: string;
  /** path components below root; the last one is the file */
  parts: string[];
};

const shownPath = (b: Beneath) => (depth: number) => [b.shownRoot, ...b.parts.slice(0, depth)].join('/');

/**
 * Create or truncate the file, making missing directories; nothing is reached through a link.
 * All of `data` is written or the call throws and the file is removed: a short write (the
 * scratch tmpfs is full) must not leave a truncated file that looks like the real one.
 */
export function writeFileBeneath(b: Beneath, data: Buffer, mode: number, owner?: { uid: number; gid: number }): void {
  const shown = shownPath(b);
  if (b.parts.length === 0) throw new SandboxError(`${b.shownRoot} is a directory, not a file path`, 'config');
  const dirFd = openDirBeneath(b.root, b.parts.slice(0, -1), shown, true);
  const name = at(dirFd, b.parts.at(-1)!);
  try {
    let fd: number;
    try {
      fd = openSync(name, WRITE_FLAGS, mode);
    } catch (e) {
      refuse(shown(b.parts.length), e as NodeJS.ErrnoException);
    }
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new SandboxError(`${shown(b.parts.length)} is not a regular file`, 'config');
    }
    let written = 0;
    try {
      try {
        // writeSync may write less than asked (a file system nearly full): go on until all is written.
        while (written < data.length) {
          const n = writeSync(fd, data, written, data.length - written);
          if (n <= 0) throw Object.assign(new Error('write made no progress'), { code: 'ENOSPC' });
          written += n;
        }
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC' || code === 'EDQUOT') {
          throw new SandboxError(
            `${shown(b.parts.length)}: the sandbox scratch is full (${code}) after ${written} of ${data.length} bytes; ` +
              'nothing was kept. Raise limits.diskMb or put smaller files',
            'config',
          );
        }
        throw new SandboxError(
          `${shown(b.parts.length)}: write failed after ${written} of ${data.length} bytes (${code ?? (e as Error).message}); nothing was kept`,
        );
      }
      if (owner) fchownSync(fd, owner.uid, owner.gid);
    } catch (e) {
      // Whatever went wrong writing it, no partial file is left behind.
      try {
        unlinkSync(name);
      } catch {
        /* already gone */
      }
      throw e;
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(dirFd);
  }
}

/** Read a regular file of at most `maxBytes`; nothing is reached through a link. */
export function readFileBeneath(b: Beneath, maxBytes: number): Buffer {
  const shown = shownPath(b);
  if (b.parts.length === 0) throw new SandboxError(`${b.shownRoot} is a directory, not a file path`, 'config');
  const dirFd = openDirBeneath(b.root, b.parts.slice(0, -1), shown);
  let fd: number;
  try {
    fd = openSync(at(dirFd, b.parts.at(-1)!), READ_FLAGS);
  } catch (e) {
    refuse(shown(b.parts.length), e as NodeJS.ErrnoException);
  } finally {
    closeSync(dirFd);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SandboxError(`${shown(b.parts.length)} is not a regular file`, 'config');
    if (st.size > maxBytes) throw new SandboxError(`${shown(b.parts.length)} is larger than ${maxBytes} bytes`, 'config');
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
