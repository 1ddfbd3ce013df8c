import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  openSync,
  readSync,
  closeSync,
  utimesSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { contentHashProblem, environmentName, environmentNameProblem } from '@/core/environments';
import { settings } from '@/core/settings';
import { SandboxError } from '../types';

/**
 * The content-addressed environment store. An environment is an immutable root
 * filesystem whose manifest (path, type, mode, size, sha256 of every entry) digests to
 * the environment hash; `<store>/<hash>/rootfs` is what sandboxes bind read-only.
 * A name (`default`, `py311`…) is a ref to a hash.
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

/** Directories every environment has so runtimes can mount over them without writing. */
const SKELETON = ['/proc', '/dev', '/sys', '/tmp', '/work', '/root', '/etc', '/home', '/run', '/usr/bin', '/usr/lib', '/usr/lib64', '/usr/sbin'];

export function dataDir(): string {
  return path.resolve(settings().CRUCIBLE_DATA_DIR);
}

export function defaultStoreDir(): string {
  return path.resolve(settings().CRUCIBLE_ENV_STORE ?? path.join(dataDir(), 'envs'));
}

export const hashHex = (hash: string) => hash.replace(/^sha256:/, '');

function digestManifest(entries: ManifestEntry[]): string {
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

/** Build (or find, when the content already exists) an environment and point its name at it. */
export function buildEnvironment(specInput: EnvSpecInput, storeDir = defaultStoreDir()): Environment {
  const spec = envSpecSchema.parse(specInput);
  ensureStore(storeDir);
  const staging = path.join(storeDir, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  const rootfs = path.join(staging, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  chmodSync(staging, 0o755);
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

/** A fresh, private staging directory inside the store (same filesystem, so installing it is a rename). */
export function stagingDir(storeDir = defaultStoreDir()): string {
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
export function installStaged(staging: string, name: string, hash: string, storeDir = defaultStoreDir()): Environment {
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
export function environmentBuilt(name: string, storeDir = defaultStoreDir()): boolean {
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

export function loadEnvironment(name: string, storeDir = defaultStoreDir()): Environment {
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

export function listEnvironments(storeDir = defaultStoreDir()): Environment[] {
  const refs = path.join(storeDir, 'refs');
  if (!existsSync(refs)) return [];
  // a file whose name is not a valid environment name is no ref of ours (loading it would refuse)
  return readdirSync(refs)
    .filter((f) => f.endsWith('.json') && !environmentNameProblem(f.slice(0, -5)))
    .map((f) => loadEnvironment(f.slice(0, -5), storeDir));
}

function readManifest(env: Pick<Environment, 'manifestPath'>): { hash: string; entries: ManifestEntry[] } {
  return JSON.parse(readFileSync(env.manifestPath, 'utf8')) as { hash: string; entries: ManifestEntry[] };
}

/** Record the stat signature of the rootfs root and every entry, the fast check's baseline. */
function writeSignatures(dir: string): void {
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

/** The default environment: sh + coreutils and friends, python3 (stdlib) and node. */
export function defaultEnvSpec(): EnvSpecInput {
  // the host's python3 (e.g. python3.11) with its stdlib directory of the same name
  let py = 'python3.11';
  try {
    py = path.basename(realpathSync('/usr/bin/python3'));
  } catch {
    /* no python3 on this host: the environment just lacks it */
  }
  const pyLib = `/usr/lib/${py}`;
  const include = new Set<string>(['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/python3', `/usr/bin/${py}`, pyLib, '/usr/bin/node']);
  const coreutils = [
    '[',
    'basename',
    'cat',
    'chmod',
    'cp',
    'cut',
    'date',
    'dd',
    'df',
    'dirname',
    'du',
    'echo',
    'env',
    'expr',
    'false',
    'head',
    'id',
    'kill',
    'ln',
    'ls',
    'mkdir',
    'mktemp',
    'mv',
    'nohup',
    'nproc',
    'printf',
    'pwd',
    'readlink',
    'realpath',
    'rm',
    'rmdir',
    'seq',
    'sha256sum',
    'sleep',
    'sort',
    'stat',
    'tail',
    'tee',
    'test',
    'timeout',
    'touch',
    'tr',
    'true',
    'uname',
    'uniq',
    'wc',
    'whoami',
    'yes',
    'grep',
    'sed',
    'setsid',
    'find',
    'xargs',
    'ps',
  ];
  for (const c of coreutils) if (existsSync(`/usr/bin/${c}`)) include.add(`/usr/bin/${c}`);
  return {
    name: 'default',
    include: [...include].filter(existsSync),
    exclude: [`${pyLib}/test`, `${pyLib}/idlelib`, `${pyLib}/tkinter`, `${pyLib}/turtledemo`, `${pyLib}/ensurepip`, 'dist-packages'],
    files: {
      '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/work:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
      '/etc/group': 'root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n',
      '/etc/hosts': '127.0.0.1 localhost sandbox\n::1 localhost\n',
      '/etc/nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
      '/etc/resolv.conf': '',
    },
  };
}

/**
 * Debian's pytest (`python3-pytest`) and what it imports, for repository tasks. Only these
 * entries of /usr/lib/python3/dist-packages go in (never the whole directory: its .pth files
 * would run at every interpreter start). Missing on the host: the environment lacks pytest.
 */
const PYTEST_MODULES = ['pytest', '_pytest', 'pluggy', 'iniconfig', 'packaging', 'attr', 'attrs', 'py.py'];
const PYTEST_METADATA = /^(pytest|pluggy|iniconfig|packaging|attrs)-[^/]*\.(dist-info|egg-info)$/;

/** The `repo` environment (REPO_DEFAULT_ENVIRONMENT): the default toolchain plus pytest, for repository tasks. */
export function repoEnvSpec(): EnvSpecInput {
  const base = defaultEnvSpec();
  const dist = '/usr/lib/python3/dist-packages';
  const names = existsSync(dist) ? readdirSync(dist) : [];
  // module dirs plus their metadata (pytest finds its plugins through entry points in it)
  const pytest = names.filter((n) => PYTEST_MODULES.includes(n) || PYTEST_METADATA.test(n)).map((n) => `${dist}/${n}`);
  const pyLib = (base.include ?? []).find((p) => /^\/usr\/lib\/python3\.\d+$/.test(p));
  return {
    ...base,
    name: 'repo',
    include: [...(base.include ?? []), ...pytest],
    // the default leaves every dist-packages out; here only the interpreter's own one stays out
    exclude: [...(base.exclude ?? []).filter((x) => x !== 'dist-packages'), ...(pyLib ? [`${pyLib}/dist-packages`] : [])],
  };
}

/** Environments built from a spec of ours on first use. */
const BUILT_IN_SPECS: Record<string, () => EnvSpecInput> = { default: defaultEnvSpec, repo: repoEnvSpec };

/** A built-in environment (`default`, `repo`), built on first use. */
export function ensureBuiltInEnvironment(name: string, storeDir = defaultStoreDir()): Environment {
  if (existsSync(refPath(storeDir, name))) return loadEnvironment(name, storeDir);
  const spec = BUILT_IN_SPECS[name];
  if (!spec) throw new SandboxError(`environment "${name}" is not built in; built-in ones are ${Object.keys(BUILT_IN_SPECS).join(', ')}`, 'config');
  return buildEnvironment(spec(), storeDir);
}

/** The spec of a built-in environment, or undefined. */
export function builtInEnvSpec(name: string): EnvSpecInput | undefined {
  return BUILT_IN_SPECS[name]?.();
}

/** The default environment, built on first use. */
export function ensureDefaultEnvironment(storeDir = defaultStoreDir()): Environment {
  return ensureBuiltInEnvironment('default', storeDir);
}

export function resolveEnvironment(name: string, storeDir = defaultStoreDir()): Environment {
  return Object.hasOwn(BUILT_IN_SPECS, name) ? ensureBuiltInEnvironment(name, storeDir) : loadEnvironment(name, storeDir);
}
