import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspacePath, type WorkspaceFiles, type WorkspaceSource } from '@/core/repo-tasks';
import { makeFile, WorkspaceError } from './workspace-file';

/**
 * A task's workspace as files, from wherever its line says: inline files, a local directory,
 * a tarball (the host's GNU tar) or a commit of a local git repository. Relative paths are
 * taken from `baseDir` (the task file's directory). Bounded: a workspace over the file or
 * byte cap is refused before it is read in full.
 */

export type WorkspaceCaps = { maxFiles: number; maxBytes: number };
export const DEFAULT_WORKSPACE_CAPS: WorkspaceCaps = { maxFiles: 5000, maxBytes: 64 * 1024 * 1024 };

/** Directories never part of a workspace: VCS data and caches a local test run leaves behind. */
const SKIPPED_DIRS = new Set(['.git', '__pycache__', '.pytest_cache']);

class Budget {
  files = 0;
  bytes = 0;
  constructor(
    private readonly caps: WorkspaceCaps,
    private readonly what: string,
  ) {}
  add(size: number): void {
    this.files += 1;
    this.bytes += size;
    if (this.files > this.caps.maxFiles)
      throw new WorkspaceError(`${this.what} has more than ${this.caps.maxFiles} files (the workspace cap); trim the workspace`);
    if (this.bytes > this.caps.maxBytes) {
      throw new WorkspaceError(`${this.what} holds more than ${this.caps.maxBytes} bytes (the workspace cap); trim the workspace or leave large files out`);
    }
  }
}

function checkedPath(rel: string, what: string): string {
  const ok = workspacePath.safeParse(rel);
  if (!ok.success) throw new WorkspaceError(`${what}: "${rel}" is not a workspace path (${ok.error.issues[0]?.message ?? 'invalid'})`);
  return rel;
}

/** Read a directory tree; symlinks are followed only when they stay inside the tree. */
function readDir(root: string, caps: WorkspaceCaps, what: string): WorkspaceFiles {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    if (!statSync(realRoot).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new WorkspaceError(`${what}: ${root} is not a readable directory (${(e as Error).message})`);
  }
  const files: WorkspaceFiles = {};
  const budget = new Budget(caps, what);
  const inside = (p: string) => p === realRoot || p.startsWith(`${realRoot}${path.sep}`);
  const walk = (absDir: string, rel: string, seen: Set<string>) => {
    for (const name of readdirSync(absDir).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      let abs = path.join(absDir, name);
      let st = lstatSync(abs);
      if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(abs);
        } catch {
          throw new WorkspaceError(`${what}: ${relPath} is a dangling symbolic link; remove it or make it a file`);
        }
        if (!inside(target)) throw new WorkspaceError(`${what}: ${relPath} is a symbolic link to ${target}, outside the workspace; refusing it`);
        abs = target;
        st = statSync(abs);
      }
      if (st.isDirectory()) {
        if (SKIPPED_DIRS.has(name)) continue;
        const real = realpathSync(abs);
        if (seen.has(real)) throw new WorkspaceError(`${what}: ${relPath} links back to a directory above it (a loop)`);
        walk(abs, relPath, new Set([...seen, real]));
      } else if (st.isFile()) {
        budget.add(st.size);
        files[checkedPath(relPath, what)] = makeFile(readFileSync(abs), (st.mode & 0o111) !== 0);
      } else {
        throw new WorkspaceError(`${what}: ${relPath} is not a regular file, directory or link (a FIFO, socket or device); remove it`);
      }
    }
  };
  walk(realRoot, '', new Set([realRoot]));
  return files;
}

function run(cmd: string, args: string[], what: string, input?: Buffer): Buffer {
  try {
    return execFileSync(cmd, args, { input, maxBuffer: 1 << 30, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    const detail = err.stderr?.toString('utf8').trim() || err.message;
    throw new WorkspaceError(`${what}: \`${cmd} ${args.join(' ')}\` failed: ${detail.split('\n').slice(0, 3).join(' ')}`);
  }
}

/** Extract a tarball, after its listing shows it within the caps (no tar bomb reaches the disk). */
function readTarball(file: string, caps: WorkspaceCaps): WorkspaceFiles {
  const what = `tarball ${file}`;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch (e) {
    throw new WorkspaceError(`${what} cannot be read (${(e as Error).message}); give the path of a .tar/.tar.gz file`);
  }
  const budget = new Budget(caps, what);
  // `tar -tv` lines: MODE OWNER SIZE DATE TIME NAME; only regular files count
  for (const line of run('tar', ['-tvf', file], what).toString('utf8').split('\n')) {
    const m = /^(\S)\S*\s+\S+\s+(\d+)\s/.exec(line);
    if (m && m[1] === '-') budget.add(Number(m[2]));
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'crucible-ws-tar-'));
  try {
    // GNU tar drops leading "/" and refuses members with ".."; links outside are refused by readDir
    run('tar', ['-xf', file, '-C', dir, '--no-same-owner', '--no-same-permissions', '--no-overwrite-dir'], what);
    return readDir(dir, caps, what);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One commit of a local repository, read from git's object store (ls-tree + cat-file), not a
 * checkout or `git archive`: archive honours the tree's .gitattributes (export-ignore drops
 * files, often tests; export-subst rewrites them), and we want the commit exactly.
 */
function readGitCommit(repo: string, commit: string, caps: WorkspaceCaps, skippedLinks: string[]): WorkspaceFiles {
  const what = `git repository ${repo} at ${commit}`;
  const git = (args: string[], input?: Buffer) => run('git', ['-c', 'safe.directory=*', '-C', repo, ...args], what, input);
  try {
    git(['rev-parse', '--git-dir']);
  } catch {
    throw new WorkspaceError(`${repo} is not a git repository (or cannot be read); repo_path / workspace.git must be a local clone`);
  }
  try {
    git(['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new WorkspaceError(`${what}: commit ${commit} is not in the repository; fetch it into the local clone first`);
  }
  // "<mode> <type> <sha> <size>\t<path>" NUL-separated
  const entries: { mode: string; sha: string; path: string }[] = [];
  const budget = new Budget(caps, what);
  for (const rec of git(['ls-tree', '-r', '-l', '-z', commit]).toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, sha, size] = rec.slice(0, tab).split(/\s+/);
    const p = rec.slice(tab + 1);
    if (type === 'commit') continue; // a submodule: not part of this repository's content (git archive leaves it empty too)
    // workspaces hold regular files only; a link is left out (and reported), not the whole task refused:
    // real repositories carry a few (docs, fixtures) that their tests never read
    if (mode === '120000') {
      skippedLinks.push(checkedPath(p, what));
      continue;
    }
    if (SKIPPED_DIRS.has(p.split('/')[0]!) || p.split('/').some((s) => s === '__pycache__' || s === '.pytest_cache')) continue;
    budget.add(Number(size));
    entries.push({ mode: mode!, sha: sha!, path: checkedPath(p, what) });
  }
  const files: WorkspaceFiles = {};
  if (entries.length === 0) return files;
  const out = git(['cat-file', '--batch'], Buffer.from(entries.map((e) => `${e.sha}\n`).join('')));
  let at = 0;
  for (const e of entries) {
    const nl = out.indexOf(0x0a, at);
    const header = out.subarray(at, nl).toString('utf8').split(' ');
    if (header[0] !== e.sha || header[1] !== 'blob') throw new WorkspaceError(`${what}: git cat-file answered "${header.join(' ')}" for ${e.path}`);
    const size = Number(header[2]);
    files[e.path] = makeFile(Buffer.from(out.subarray(nl + 1, nl + 1 + size)), e.mode === '100755');
    at = nl + 1 + size + 1;
  }
  return files;
}

/** `skippedLinks` collects the symbolic links of a git tree that were left out (paths in the workspace). */
export function materializeWorkspace(
  source: WorkspaceSource,
  baseDir: string,
  caps: WorkspaceCaps = DEFAULT_WORKSPACE_CAPS,
  skippedLinks: string[] = [],
): WorkspaceFiles {
  const resolve = (p: string) => path.resolve(baseDir, p);
  if ('files' in source) {
    const budget = new Budget(caps, 'the inline workspace');
    const files: WorkspaceFiles = {};
    for (const [p, f] of Object.entries(source.files)) {
      budget.add(typeof f === 'string' ? Buffer.byteLength(f) : Math.floor((f.base64.length * 3) / 4));
      if (p.split('/').includes('.git'))
        throw new WorkspaceError(
          `the inline workspace: "${p}" lies in a .git directory; a workspace holds no .git (the agent's sandbox gets its own, with the base commit)`,
        );
      files[checkedPath(p, 'the inline workspace')] = f;
    }
    return files;
  }
  if ('dir' in source) return readDir(resolve(source.dir), caps, `workspace directory ${source.dir}`);
  if ('tarball' in source) return readTarball(resolve(source.tarball), caps);
  return readGitCommit(resolve(source.git), source.commit, caps, skippedLinks);
}
