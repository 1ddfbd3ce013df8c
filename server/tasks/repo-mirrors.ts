import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoSlug } from '@/core/repo-tasks';
import { childEnv } from '@/core/settings';
import { realOrNull, within } from '@/server/paths/resolved-path';

/**
 * Where SWE-bench lines that name `repo` ("owner/name") and no `repo_path` are read from: a
 * directory of mirrors (`crucible tasks import --repos DIR`, or CRUCIBLE_REPO_MIRRORS for the
 * API), or a git URL base cloned from into a cache directory. Over the API only the server's
 * setting is read, never a path a client sends (server/routers/tasks.ts).
 */
export type MirrorSource = { dir: string } | { url: string; cacheDir: string };

/** One repository's mirror: the git directory to read commits from, or why there is none (naming every path looked at). */
export type MirrorResolution = { path: string; gitDir: string } | { error: string };

/** The mirrors a task file needs, resolved once per repository before its lines are parsed. */
export type ResolvedMirrors = { source: MirrorSource; byRepo: Map<string, MirrorResolution> };

export const isGitUrl = (v: string) => /^(https?|ssh|git|file):\/\//.test(v);

/** `--repos` / CRUCIBLE_REPO_MIRRORS as a source: a URL keeps its own cache under the data directory (one per URL base). */
export function mirrorSource(value: string, o: { cwd: string; dataDir: string }): MirrorSource {
  if (!isGitUrl(value)) return { dir: path.resolve(o.cwd, value) };
  const url = value.replace(/\/+$/, '');
  return { url, cacheDir: path.join(o.dataDir, 'repo-mirrors', createHash('sha256').update(url).digest('hex').slice(0, 16)) };
}

/** Where `owner/name` may lie under a mirror directory, in the order tried. */
export function mirrorCandidates(dir: string, repo: string): string[] {
  const [owner, name] = repo.split('/') as [string, string];
  return [path.join(dir, `${owner}__${name}.git`), path.join(dir, `${owner}__${name}`), path.join(dir, owner, name)];
}

const describeSource = (s: MirrorSource) => ('dir' in s ? s.dir : `${s.url} (cached in ${s.cacheDir})`);

function gitOut(args: string[]): string | null {
  try {
    return execFileSync('git', ['-c', 'safe.directory=*', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).trim();
  } catch {
    return null;
  }
}

/** Whether `commit` is a commit object of the repository at `gitDir`. */
export const hasCommit = (gitDir: string, commit: string) => gitOut(['--git-dir', gitDir, 'cat-file', '-e', `${commit}^{commit}`]) !== null;

/**
 * The git directory of `candidate` when it is a repository of its own: a bare mirror (the
 * directory is the git directory) or a working clone (its `.git`). Asked with `--git-dir` for
 * the one and `-C` for the other, and compared with the candidate itself, so a plain directory
 * inside some other repository is not taken for that repository. Nothing is checked out or written.
 */
function gitDirOf(candidate: string): string | null {
  const real = realOrNull(candidate);
  if (!real) return null;
  if (fs.existsSync(path.join(real, 'HEAD')) && fs.existsSync(path.join(real, 'objects'))) {
    const dir = gitOut(['--git-dir', real, 'rev-parse', '--absolute-git-dir']);
    if (dir !== null && realOrNull(dir) === real) return real;
  }
  if (fs.existsSync(path.join(real, '.git'))) {
    const top = gitOut(['-C', real, 'rev-parse', '--show-toplevel']);
    const dir = gitOut(['-C', real, 'rev-parse', '--absolute-git-dir']);
    if (top !== null && dir !== null && realOrNull(top) === real) return realOrNull(dir);
  }
  return null;
}

/**
 * A repository may read objects from elsewhere: its git directory (a `.git` file), a
 * worktree's common directory, `objects/info/alternates`. Each must resolve inside the mirror
 * directory too, or a mirror could serve another directory's commits (as import-path-policy
 * does for repo_path).
 */
function escapes(gitDir: string, root: string): string | null {
  const common = gitOut(['--git-dir', gitDir, 'rev-parse', '--git-common-dir']);
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  for (const dir of dirs) {
    const real = realOrNull(dir) ?? dir;
    if (!within(real, root)) return `its git directory ${real}`;
    const alternates = path.join(real, 'objects', 'info', 'alternates');
    if (!fs.existsSync(alternates)) continue;
    for (const alt of fs.readFileSync(alternates, 'utf8').split('\n')) {
      if (!alt.trim() || alt.startsWith('#')) continue;
      const a = path.resolve(real, 'objects', alt.trim());
      const ra = realOrNull(a) ?? a;
      if (!within(ra, root)) return `its alternate object directory ${ra}`;
    }
  }
  return null;
}

/**
 * `owner/name` under a mirror directory: the first of `owner__name.git`, `owner__name`,
 * `owner/name` that exists. It must resolve inside `dir` (symbolic links and `..` resolved),
 * with its git directory and alternates inside too; the error names every path looked at.
 */
export function resolveLocalMirror(dir: string, repo: string): MirrorResolution {
  if (!repoSlug.safeParse(repo).success) return { error: `repo "${repo}" is not "owner/name"` };
  const root = realOrNull(dir);
  if (root === null || !fs.statSync(root).isDirectory()) return { error: `the mirror directory ${dir} does not exist (or is not a directory)` };
  const looked: string[] = [];
  for (const candidate of mirrorCandidates(dir, repo)) {
    try {
      fs.lstatSync(candidate);
    } catch {
      looked.push(`${candidate} (absent)`);
      continue;
    }
    const real = realOrNull(candidate);
    if (real === null) {
      looked.push(`${candidate} (a broken symbolic link)`);
      continue;
    }
    if (!within(real, root))
      return {
        error: `the mirror of ${repo} at ${candidate} resolves to ${real}, outside the mirror directory ${dir}; mirrors must lie inside it (no symbolic links or ".." out)`,
      };
    const gitDir = gitDirOf(real);
    if (gitDir === null) {
      looked.push(`${candidate} (not a git repository: neither a bare mirror nor a clone)`);
      continue;
    }
    const out = escapes(gitDir, root);
    if (out) return { error: `the mirror of ${repo} at ${candidate} reads objects from outside the mirror directory ${dir}: ${out}` };
    return { path: real, gitDir };
  }
  const [owner, name] = repo.split('/') as [string, string];
  return {
    error: `no mirror of ${repo} in ${dir}; looked at ${looked.join(', ')}; clone it there, e.g. git clone --mirror https://github.com/${repo}.git ${path.join(dir, `${owner}__${name}.git`)}`,
  };
}

const execFileAsync = promisify(execFile);

/** git against the network: never a prompt (no terminal on a server), no `ext::` transport, bounded in time. */
async function gitRemote(args: string[]): Promise<void> {
  await execFileAsync('git', ['-c', 'protocol.ext.allow=never', ...args], {
    env: childEnv({ GIT_TERMINAL_PROMPT: '0' }, { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' }),
    timeout: 30 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

const firstLine = (e: unknown) => {
  const err = e as { stderr?: string; message?: string; killed?: boolean };
  if (err.killed) return 'timed out';
  const text = (err.stderr || err.message || String(e)).trim();
  return (
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-1)[0] ?? text
  );
};

/**
 * `owner/name` from a git URL base: cloned (`--mirror`) from `URL/owner/name` into the cache on
 * first use, fetched again when a commit a line needs is missing, then read like a directory of
 * mirrors. Where the network is unreachable the error names the URL and git's reason.
 */
async function resolveUrlMirror(source: { url: string; cacheDir: string }, repo: string, commits: string[]): Promise<MirrorResolution> {
  if (!repoSlug.safeParse(repo).success) return { error: `repo "${repo}" is not "owner/name"` };
  const [owner, name] = repo.split('/') as [string, string];
  const url = `${source.url}/${repo}`;
  const target = path.join(source.cacheDir, `${owner}__${name}.git`);
  if (!fs.existsSync(target)) {
    fs.mkdirSync(source.cacheDir, { recursive: true });
    const tmp = `${target}.tmp-${process.pid}-${Date.now()}`;
    try {
      await gitRemote(['clone', '--mirror', '--quiet', '--', url, tmp]);
      try {
        fs.renameSync(tmp, target);
      } catch {
        // another import cloned it meanwhile: theirs serves
      }
    } catch (e) {
      return {
        error: `cannot clone ${url} (the mirror of ${repo}) into ${target}: ${firstLine(e)}; where the network is unreachable, clone it elsewhere and import with --repos DIR`,
      };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } else if (commits.some((c) => !hasCommit(target, c))) {
    // a commit newer than the cached mirror: fetch once; offline, the line names the missing commit
    await gitRemote(['--git-dir', target, 'fetch', '--quiet', '--prune', 'origin']).catch(() => undefined);
  }
  return resolveLocalMirror(source.cacheDir, repo);
}

/**
 * The repositories a SWE-bench file reads from mirrors (lines with `repo` and no `repo_path`),
 * with the commits each needs; lines that do not parse are left to the line parser to report.
 */
export function mirrorNeeds(text: string): Map<string, Set<string>> {
  const needs = new Map<string, Set<string>>();
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      continue;
    }
    if (typeof json !== 'object' || json === null) continue;
    const l = json as Record<string, unknown>;
    if (typeof l.repo !== 'string' || l.repo_path !== undefined) continue;
    const commits = needs.get(l.repo) ?? new Set<string>();
    for (const c of [l.base_commit, l.environment_setup_commit]) if (typeof c === 'string') commits.add(c);
    needs.set(l.repo, commits);
  }
  return needs;
}

/** Every repository a file needs, resolved (and for a URL, cloned or fetched) once, before its lines are parsed. */
export async function resolveMirrors(text: string, source: MirrorSource): Promise<ResolvedMirrors> {
  const byRepo = new Map<string, MirrorResolution>();
  for (const [repo, commits] of mirrorNeeds(text))
    byRepo.set(repo, 'dir' in source ? resolveLocalMirror(source.dir, repo) : await resolveUrlMirror(source, repo, [...commits]));
  return { source, byRepo };
}

/** A line's mirror, or the sentence its error starts with. */
export function mirrorFor(mirrors: ResolvedMirrors | null, repo: string): MirrorResolution {
  if (!mirrors) {
    const [owner, name] = repo.split('/') as [string, string];
    return {
      error: `repo ${repo} is read from a directory of mirrors and none is set: pass --repos DIR to \`crucible tasks import\` (DIR holding ${owner}__${name}.git, ${owner}__${name} or ${owner}/${name}), set CRUCIBLE_REPO_MIRRORS on the server for imports over the API, or give the line a repo_path`,
    };
  }
  return mirrors.byRepo.get(repo) ?? { error: `no mirror of ${repo} was resolved in ${describeSource(mirrors.source)}` };
}
