import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { realOrNull, within } from './resolved-path';

/**
 * Which server directories an import may read: repository tasks (`workspace.dir`/`tarball`/
 * `git`, SWE-bench `repo_path`) and model directories (`models.import`). A task line or a
 * model `dir` is data from whoever sent it, and what it names ends up readable by agents or
 * shown to every viewer: without a bound, `{"dir": "/etc"}` copies server files into a task
 * and a model import reads any server directory. `roots` are the directories allowed
 * (CRUCIBLE_IMPORT_ROOTS, plus what the in-process CLI names itself); `via` only shapes the
 * error message.
 */
export type ImportPathPolicy = { roots: readonly string[]; via: 'api' | 'cli'; of: 'tasks' | 'model' };

/**
 * The policy of a caller: the in-process CLI (trusted with the database) also reads `baseDir`
 * (its task file's directory tree, or the model directory it names).
 */
export function importPathPolicy(
  configuredRoots: readonly string[],
  caller: { local: boolean; baseDir?: string },
  of: ImportPathPolicy['of'] = 'tasks',
): ImportPathPolicy {
  if (caller.local) return { roots: [...(caller.baseDir ? [caller.baseDir] : []), ...configuredRoots], via: 'cli', of };
  return { roots: configuredRoots, via: 'api', of };
}

/**
 * `p` (absolute) with symbolic links and `..` resolved, when it lies in one of the policy's
 * roots; a string saying why not otherwise. A path that does not exist is judged by its
 * deepest existing ancestor, so the answer for a path outside the roots is the same whether
 * or not it exists (the refusal does not probe the server's disk for the caller).
 */
export function checkImportPath(p: string, policy: ImportPathPolicy, what: string, shown = p): { path: string } | { error: string } {
  if (policy.roots.length === 0) {
    return {
      error:
        policy.via === 'api'
          ? `${what} names a path on the server (${shown}); imports over the API read local paths only under CRUCIBLE_IMPORT_ROOTS, which is not set: set it on the server to the directories operators may import from${policy.of === 'model' ? ', or import with the CLI on that host' : ', or give the workspace inline as {"files": …}'}`
          : `${what} names a local path (${shown}) but no import root is allowed; set CRUCIBLE_IMPORT_ROOTS`,
    };
  }
  const roots = policy.roots.map(realOrNull).filter((r): r is string => r !== null);
  let real = realOrNull(p);
  if (real === null) {
    // the deepest ancestor that exists, resolved, plus the rest as written
    let head = p;
    const tail: string[] = [];
    while (realOrNull(head) === null && path.dirname(head) !== head) {
      tail.unshift(path.basename(head));
      head = path.dirname(head);
    }
    real = path.join(realOrNull(head) ?? head, ...tail);
  }
  if (roots.some((r) => within(real, r))) return { path: realOrNull(p) ?? p };
  const allowed =
    policy.via === 'cli'
      ? `${policy.of === 'model' ? 'the directory named' : "the task file's directory"} and CRUCIBLE_IMPORT_ROOTS (${policy.roots.join(', ')})`
      : `CRUCIBLE_IMPORT_ROOTS (${policy.roots.join(', ')})`;
  return {
    error: `${what} ${shown}${real !== shown ? ` (resolves to ${real})` : ''} is outside the directories imports may read: ${allowed}; move it under one, or add its directory to CRUCIBLE_IMPORT_ROOTS`,
  };
}

/**
 * A git repository can fetch objects from outside its directory: a `.git` file (`gitdir: …`),
 * a worktree's common dir, or `objects/info/alternates`. Each must stay within the roots too,
 * or a repository inside a root could read another one's commits.
 */
export function checkGitRepoPaths(repo: string, policy: ImportPathPolicy, what: string): string | null {
  let dirs: string[];
  try {
    dirs = execFileSync('git', ['-c', 'safe.directory=*', '-C', repo, 'rev-parse', '--absolute-git-dir', '--git-common-dir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 30_000,
    })
      .trim()
      .split('\n')
      .map((d) => path.resolve(repo, d));
  } catch {
    return null; // not a repository: the reader says so
  }
  for (const dir of dirs) {
    const c = checkImportPath(dir, policy, `${what}'s git directory`);
    if ('error' in c) return c.error;
    const alternates = path.join(dir, 'objects', 'info', 'alternates');
    if (!fs.existsSync(alternates)) continue;
    for (const alt of fs.readFileSync(alternates, 'utf8').split('\n')) {
      if (!alt.trim() || alt.startsWith('#')) continue;
      const a = checkImportPath(path.resolve(dir, 'objects', alt.trim()), policy, `${what}'s alternate object directory`);
      if ('error' in a) return a.error;
    }
  }
  return null;
}
