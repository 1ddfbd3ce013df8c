import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { WorkspaceSandboxError } from './sandbox-workspace';

/**
 * The agent's `.git`: a repository holding exactly one commit, the task's workspace as the agent
 * first sees it (before the task's setup runs), so `git status`, `git diff`, `git stash` and
 * `git log` work as on a fresh checkout. No remotes, no other refs, no upstream history: the
 * future of the repository (the fix) cannot be read from it. Made inside the sandbox by its own
 * user (the files are then the agent's to change), with fixed names and dates, so the same
 * workspace always gets the same commit id.
 *
 * `.git` is never part of the workspace: the read-back leaves it out (sandbox-workspace.ts), so
 * no patch carries it, and the grader drops any `.git` path a patch names (protected-paths.ts).
 * Where the environment has no git (a custom environment), nothing is made.
 */

export const BASE_COMMIT_MESSAGE = 'base';
const IDENTITY = { name: 'Crucible agent', email: 'agent@crucible.invalid' };
const DATE = '2000-01-01T00:00:00Z';

/** Readback leaves these out anyway; git status should not list them as untracked either. */
const EXCLUDE = ['__pycache__/', '.pytest_cache/', '*.pyc'];

/**
 * `git init` with an empty template (no sample hooks; the environment has no template dir),
 * local config (the identity `git stash` and `git commit` need, no pager, no automatic gc), every
 * file added (`-f`: a file the repository's own .gitignore names is still part of the base), one
 * commit. `exit 0` where git is missing.
 */
export const GIT_BASE_SCRIPT = [
  'command -v git >/dev/null 2>&1 || exit 0',
  'set -e',
  'git init -q --template= -b main .',
  `git config user.name '${IDENTITY.name}'`,
  `git config user.email '${IDENTITY.email}'`,
  'git config core.pager cat',
  'git config gc.auto 0',
  'mkdir -p .git/info',
  `printf '%s\\n' ${EXCLUDE.map((e) => `'${e}'`).join(' ')} > .git/info/exclude`,
  'git add -A -f .',
  `git commit -q --allow-empty --no-verify -m '${BASE_COMMIT_MESSAGE}'`,
].join('\n');

const GIT_ENV = {
  GIT_AUTHOR_NAME: IDENTITY.name,
  GIT_AUTHOR_EMAIL: IDENTITY.email,
  GIT_COMMITTER_NAME: IDENTITY.name,
  GIT_COMMITTER_EMAIL: IDENTITY.email,
  GIT_AUTHOR_DATE: DATE,
  GIT_COMMITTER_DATE: DATE,
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: '/nonexistent',
};

/** Whether a workspace path lies in a `.git` (never part of a workspace, never taken from a patch). */
export const isGitPath = (p: string) => p.split('/').includes('.git');

/** Make the one-commit repository in `dir` (the workspace just written). Throws WorkspaceSandboxError when git is there and fails. */
export async function initWorkspaceGit(sb: Sandbox, dir: string, timeoutMs = 120_000): Promise<void> {
  const r = await sb.exec(['sh', '-c', GIT_BASE_SCRIPT], { cwd: dir, timeoutMs, env: GIT_ENV });
  if (r.status !== 'ok')
    throw new WorkspaceSandboxError(
      `cannot make the workspace's git repository (${r.status}${r.exitCode !== null ? `, exit ${r.exitCode}` : ''}): ${(r.error ?? r.stderr).trim().slice(-1000)}`,
    );
}
