import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import type { Environment } from '../env/env-manifest';
import type { MicrovmKernel } from './microvm-kernel';

/**
 * What a microVM boots from, made on the host: the initramfs (our init, the supervisor,
 * the seccomp filter, the virtio modules), the environment's rootfs as a read-only ext4
 * image, and each sandbox's scratch disk. Images are cached in `<env store>/microvm/`,
 * named by what they are made of, and written to a temporary name and renamed, so
 * concurrent builders converge.
 */

/** One file of a newc cpio archive (the initramfs format the kernel unpacks). */
type CpioEntry = { name: string; mode: number; data?: Buffer; rdev?: [number, number] };

function cpio(entries: CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  const pad = (n: number) => Buffer.alloc((4 - (n % 4)) % 4);
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  let ino = 1;
  for (const e of [...entries, { name: 'TRAILER!!!', mode: 0 }] as CpioEntry[]) {
    const data = e.data ?? Buffer.alloc(0);
    const name = Buffer.from(`${e.name}\0`);
    const fields = [ino++, e.mode, 0, 0, e.mode & 0o040000 ? 2 : 1, 0, data.length, 0, 0, e.rdev?.[0] ?? 0, e.rdev?.[1] ?? 0, name.length, 0];
    const head = Buffer.from(`070701${fields.map(hex).join('')}`);
    parts.push(head, name, pad(head.length + name.length), data, pad(data.length));
  }
  return Buffer.concat(parts);
}

/** Write `data` to `file` unless it is there already (tmp + rename). */
function writeOnce(file: string, make: () => Buffer): string {
  if (existsSync(file)) return file;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, make(), { mode: 0o644 });
  renameSync(tmp, file);
  return file;
}

/** The initramfs: /init (microvm-init.c), the supervisor, our seccomp filter and the virtio modules. */
export function initramfs(cacheDir: string, kernel: MicrovmKernel, init: string, supervisor: string, seccomp: Buffer): string {
  const files = [init, supervisor, ...kernel.modules];
  const h = createHash('sha256');
  for (const f of files) h.update(readFileSync(f));
  h.update(seccomp);
  const tag = h.digest('hex').slice(0, 16);
  return writeOnce(path.join(cacheDir, `initramfs-${tag}.cpio`), () =>
    cpio([
      ...['dev', 'proc', 'sys', 'modules', 'newroot', 'scratch', 'cg'].map((d) => ({ name: d, mode: 0o040755 })),
      { name: 'dev/console', mode: 0o020600, rdev: [5, 1] },
      { name: 'init', mode: 0o100755, data: readFileSync(init) },
      { name: 'crucible-supervisor', mode: 0o100755, data: readFileSync(supervisor) },
      { name: 'seccomp.bpf', mode: 0o100644, data: seccomp },
      { name: 'modules/order', mode: 0o100644, data: Buffer.from(kernel.modules.map((m) => path.basename(m, '.ko')).join('\n') + '\n') },
      ...kernel.modules.map((m) => ({ name: `modules/${path.basename(m)}`, mode: 0o100644, data: readFileSync(m) })),
    ]),
  );
}

type ImageSignature = { sha256: string; ino: string; size: string; mtimeNs: string; ctimeNs: string };
const signature = (st: BigIntStats) => ({ ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) });

function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function mkfs(args: string[]): void {
  const r = spawnSync('mkfs.ext4', args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`mkfs.ext4 ${args.join(' ')} failed: ${r.error?.message ?? r.stderr.trim()}`);
}

/**
 * The environment's rootfs as an ext4 image (no journal), built once per environment hash
 * from the verified rootfs directory with `mkfs.ext4 -d`, mode 0444. Its sha256 and
 * (inode, size, mtime, ctime) are recorded next to it; `checkRootImage` compares them.
 */
export function rootImage(cacheDir: string, env: Environment): string {
  const file = path.join(cacheDir, `rootfs-${env.hash.replace(/^sha256:/, '').slice(0, 32)}.ext4`);
  const sigFile = `${file}.sig.json`;
  if (existsSync(file) && existsSync(sigFile)) return file;
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  const du = spawnSync('du', ['-sk', '--apparent-size', env.rootfs], { encoding: 'utf8' });
  const kb = Number(/^(\d+)/.exec(du.stdout ?? '')?.[1] ?? 0);
  const sizeMb = Math.ceil((kb * 1.25) / 1024) + 32; // room for ext4's metadata and small-file blocks
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  try {
    mkfs(['-q', '-F', '-O', '^has_journal', '-m', '0', '-L', 'crucible-root', '-d', env.rootfs, tmp, `${sizeMb}M`]);
    chmodSync(tmp, 0o444);
    const sha256 = sha256File(tmp);
    // two builders make different images (ext4 has a random UUID and timestamps): the first
    // link wins, and only the winner records its signature, taken after the link settled
    try {
      linkSync(tmp, file);
      rmSync(tmp, { force: true });
      writeFileSync(`${sigFile}.${process.pid}.tmp`, JSON.stringify({ sha256, ...signature(lstatSync(file, { bigint: true })) }));
      renameSync(`${sigFile}.${process.pid}.tmp`, sigFile);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 600 && !existsSync(sigFile); i++) Atomics.wait(tick, 0, 0, 50); // the winner is writing it
  if (!existsSync(sigFile)) throw new Error(`${file} has no signature (${sigFile}); remove the image to rebuild it`);
  return file;
}

/** Problems with a root image (empty when it is what was built): the fast signature, else the full hash decides. */
export function checkRootImage(file: string): string[] {
  let sig: ImageSignature;
  try {
    sig = JSON.parse(readFileSync(`${file}.sig.json`, 'utf8')) as ImageSignature;
  } catch (e) {
    return [`root image signature unreadable: ${(e as Error).message}`];
  }
  let st: BigIntStats;
  try {
    st = lstatSync(file, { bigint: true });
  } catch (e) {
    return [`root image missing: ${(e as Error).message}`];
  }
  const now = signature(st);
  if (now.ino === sig.ino && now.size === sig.size && now.mtimeNs === sig.mtimeNs && now.ctimeNs === sig.ctimeNs) return [];
  return sha256File(file) === sig.sha256 ? [] : [`root image ${path.basename(file)} changed (sha256 differs from the one recorded at build)`];
}

/**
 * A fresh scratch disk of exactly `diskMb` (sparse; ext4 without journal, reserve or resize
 * inode, few inodes, so nearly all of it is usable: ENOSPC comes at the quota), owned by
 * the VMM's host uid.
 */
export function scratchImage(file: string, diskMb: number, uid: number, gid: number): void {
  rmSync(file, { force: true });
  closeSync(openSync(file, 'w', 0o600));
  mkfs(['-q', '-F', '-O', '^has_journal,^resize_inode', '-m', '0', '-N', '2048', '-I', '128', '-b', '4096', '-L', 'crucible-scratch', file, `${diskMb}M`]);
  chownSync(file, uid, gid);
}
