import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { environmentName } from '@/core/environments';
import { SandboxError } from '../types';
import { digestManifest, scanRootfs, type Environment } from './env-manifest';
import { installStaged, stagingDir } from './env-store';

/**
 * Building an environment from a spec: host paths (with their shared libraries), a tarball,
 * generated files and symlinks staged into a fresh root, scanned into its manifest and
 * installed into the store under the manifest's digest.
 */

export const envSpecSchema = z
  .object({
    name: environmentName,
    /** host paths (files or directories) copied in at the same path; symlinks are followed and kept */
    include: z.array(z.string().startsWith('/', 'include paths must be absolute')).default([]),
    /** a tarball extracted as the root (before include) */
    tarball: z.string().optional(),
    /** path segments or path prefixes to leave out, e.g. "__pycache__", "/usr/lib/python3.11/test" */
    exclude: z.array(z.string()).default([]),
    /** add the shared libraries (ldd) of every ELF file included */
    libraries: z.boolean().default(true),
    symlinks: z.record(z.string(), z.string()).default({ '/bin': 'usr/bin', '/lib': 'usr/lib', '/lib64': 'usr/lib64', '/sbin': 'usr/sbin' }),
    /** generated files: absolute path → content */
    files: z.record(z.string(), z.string()).default({}),
    /** tools whose `--version` is recorded in the toolchain lock when present in the env */
    toolchain: z.array(z.string()).default(['sh', 'python3', 'node', 'gcc']),
  })
  .strict();
export type EnvSpec = z.output<typeof envSpecSchema>;
export type EnvSpecInput = z.input<typeof envSpecSchema>;

/** Directories every environment has so runtimes can mount over them without writing. */
const SKELETON = ['/proc', '/dev', '/sys', '/tmp', '/work', '/root', '/etc', '/home', '/run', '/usr/bin', '/usr/lib', '/usr/lib64', '/usr/sbin'];

function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}

class Stager {
  readonly elves: string[] = [];
  private readonly seen = new Set<string>();
  constructor(
    readonly rootfs: string,
    readonly exclude: string[],
  ) {}

  private excluded(p: string): boolean {
    return this.exclude.some((x) => (x.startsWith('/') ? p === x || p.startsWith(`${x}/`) : p.split('/').includes(x)));
  }

  /** Copy a host path to the same place in the rootfs, canonicalising parent symlinks. */
  add(hostPath: string): void {
    let p: string;
    try {
      p = path.join(realpathSync(path.dirname(hostPath)), path.basename(hostPath));
    } catch {
      throw new SandboxError(`environment include ${hostPath} does not exist on this host`, 'config');
    }
    if (this.seen.has(p) || this.excluded(p)) return;
    this.seen.add(p);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) throw new SandboxError(`environment include ${hostPath} does not exist on this host`, 'config');
    const dest = path.join(this.rootfs, p);
    this.ensureDir(path.dirname(p));
    if (st.isSymbolicLink()) {
      const target = readlinkSync(p);
      if (!existsSync(dest)) symlinkSync(target, dest);
      const resolved = path.resolve(path.dirname(p), target);
      if (existsSync(resolved)) this.add(resolved);
    } else if (st.isDirectory()) {
      mkdirSync(dest, { recursive: true });
      chmodSync(dest, st.mode & 0o7777);
      for (const name of readdirSync(p)) this.add(path.join(p, name));
    } else if (st.isFile()) {
      copyFileSync(p, dest);
      chmodSync(dest, st.mode & 0o7777 & ~0o6000); // never carry setuid/setgid bits in
      // keep mtimes: Python validates __pycache__ against source mtimes, and a read-only
      // root cannot be re-cached, so new mtimes would mean recompiling on every start
      utimesSync(dest, st.atime, st.mtime);
      if (st.size > 4 && isElf(p)) this.elves.push(p);
    }
  }

  ensureDir(p: string): void {
    const dest = path.join(this.rootfs, p);
    if (existsSync(dest)) return;
    this.ensureDir(path.dirname(p));
    mkdirSync(dest);
    chmodSync(dest, 0o755);
  }

  /** Pull in the shared libraries the copied ELF files need (one ldd call per batch). */
  addLibraries(): void {
    const done = new Set<string>();
    let pending = [...this.elves];
    while (pending.length) {
      const batch = pending.filter((f) => !done.has(f));
      pending = [];
      for (const f of batch) done.add(f);
      for (let i = 0; i < batch.length; i += 200) {
        let out = '';
        try {
          out = execFileSync('ldd', batch.slice(i, i + 200), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
        } catch (e) {
          out = String((e as { stdout?: string }).stdout ?? ''); // ldd exits 1 if any file is static
        }
        for (const m of out.matchAll(/(?:=>\s*)?(\/[^\s]+)\s+\(0x/g)) {
          const lib = m[1]!;
          if (!this.seen.has(lib) && existsSync(lib)) {
            const before = this.elves.length;
            this.add(lib);
            pending.push(...this.elves.slice(before));
          }
        }
      }
    }
  }
}

function toolVersion(rootfs: string, tool: string): string | undefined {
  const bin = ['/usr/bin', '/usr/local/bin', '/bin'].map((d) => path.join(rootfs, d, tool)).find((f) => existsSync(f));
  if (!bin) return undefined;
  if (tool === 'sh') return `dash (${path.basename(realpathSync(bin))})`;
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
    return out.split('\n')[0]!.trim();
  } catch (e) {
    return `unknown (${(e as Error).message.split('\n')[0]})`;
  }
}

/** Build (or find, when the content already exists) an environment and point its name at it. */
export function buildEnvironment(specInput: EnvSpecInput, storeDir: string): Environment {
  const spec = envSpecSchema.parse(specInput);
  const staging = stagingDir(storeDir);
  const rootfs = path.join(staging, 'rootfs');
  mkdirSync(rootfs);
  chmodSync(rootfs, 0o755);
  try {
    if (spec.tarball) {
      if (!existsSync(spec.tarball)) throw new SandboxError(`tarball ${spec.tarball} not found`, 'config');
      execFileSync('tar', ['-xpf', spec.tarball, '-C', rootfs, '--no-same-owner'], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
    const stager = new Stager(rootfs, spec.exclude);
    for (const [link, target] of Object.entries(spec.symlinks)) {
      stager.ensureDir(path.dirname(link));
      if (!existsSync(path.join(rootfs, link)) && lstatSync(path.join(rootfs, link), { throwIfNoEntry: false }) === undefined) {
        symlinkSync(target, path.join(rootfs, link));
      }
    }
    for (const d of SKELETON) stager.ensureDir(d);
    for (const p of spec.include) stager.add(p);
    if (spec.libraries) stager.addLibraries();
    for (const [p, content] of Object.entries(spec.files)) {
      stager.ensureDir(path.dirname(p));
      writeFileSync(path.join(rootfs, p), content);
      chmodSync(path.join(rootfs, p), 0o644);
    }
    const entries = scanRootfs(rootfs);
    const hash = digestManifest(entries);
    const toolchainLock: Record<string, string> = {};
    for (const t of spec.toolchain) {
      const v = toolVersion(rootfs, t);
      if (v) toolchainLock[t] = v;
    }
    const files = entries.filter((e) => e.type === 'file');
    const meta = {
      hash,
      fileCount: files.length,
      totalBytes: files.reduce((s, e) => s + e.size, 0),
      toolchainLock,
      builtAt: new Date().toISOString(),
    };
    writeFileSync(path.join(staging, 'manifest.json'), JSON.stringify({ hash, entries }));
    writeFileSync(path.join(staging, 'meta.json'), JSON.stringify(meta, null, 2));
    return installStaged(staging, spec.name, hash, storeDir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}
