import { execFileSync } from 'node:child_process';
import { nulCharacterProblem } from '@/core/nul-characters';
import path from 'node:path';
import {
  crucibleRepoTaskLine,
  swebenchTaskLine,
  type CrucibleRepoTaskLine,
  type RepoTaskDifficulty,
  type RepoTaskFormat,
  type SwebenchTaskLine,
  type WorkspaceFiles,
  type WorkspaceSource,
} from '@/core/repo-tasks';
import { describeIssues } from '@/server/errors';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { DEFAULT_WORKSPACE_CAPS, type WorkspaceCaps } from '@/lib/agent/workspace/workspace-source';
import { applyWorkspacePatch } from '@/lib/agent/workspace/workspace-diff';
import type { LineError, ParsedTask } from './formats';
import { checkGitRepoPaths, checkImportPath, type ImportPathPolicy } from '@/server/paths/import-path-policy';
import { mirrorFor, type ResolvedMirrors } from './repo-mirrors';

/** What a repository task stores beyond its tasks row (db/schema: repo_tasks, repo_workspaces). */
export type RepoTaskDetails = {
  workspace: WorkspaceFiles;
  workspaceSha256: string;
  hiddenTests: WorkspaceFiles;
  setup: string | null;
  testCommand: string | null;
  failToPass: string[];
  passToPass: string[];
  goldPatch: string | null;
  difficulty: RepoTaskDifficulty | null;
  /** symbolic links of the git tree left out of the workspace (reported at import, not stored) */
  skippedLinks: string[];
};
export type ParsedRepoTask = ParsedTask & { repo: RepoTaskDetails };

type Issue = { path: readonly PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * Zod's issues, with a failed union (the workspace source: files, dir, tarball or git) replaced
 * by the issues of the alternative that got furthest, so the reason names the real problem.
 */
function explain(issues: readonly Issue[]): string {
  const flat = issues.flatMap((i) => {
    if (i.code !== 'invalid_union' || !i.errors?.length) return [i];
    const best = [...i.errors].sort((a, b) => Math.max(0, ...b.map((x) => x.path.length)) - Math.max(0, ...a.map((x) => x.path.length)))[0]!;
    return best.map((x) => ({ ...x, path: [...i.path, ...x.path] }));
  });
  return describeIssues(flat);
}

function git(repo: string, args: string[]): boolean {
  try {
    execFileSync('git', ['-c', 'safe.directory=*', '-C', repo, ...args], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The line's workspace source with its local path checked against the import roots and
 * replaced by its resolved form (what is read is what was checked); inline files pass as they are.
 */
function confinedSource(source: WorkspaceSource, baseDir: string, policy: ImportPathPolicy, field: string): WorkspaceSource | string {
  if ('files' in source) return source;
  const given = 'dir' in source ? source.dir : 'tarball' in source ? source.tarball : source.git;
  const what = 'git' in source && field === 'repo_path' ? 'repo_path' : `workspace.${'dir' in source ? 'dir' : 'tarball' in source ? 'tarball' : 'git'}`;
  const checked = checkImportPath(path.resolve(baseDir, given), policy, what, given);
  if ('error' in checked) return checked.error;
  if ('dir' in source) return { dir: checked.path };
  if ('tarball' in source) return { tarball: checked.path };
  return checkGitRepoPaths(checked.path, policy, what) ?? { git: checked.path, commit: source.commit };
}

/**
 * Where a SWE-bench line's commits are read from: its `repo_path` (confined to the import
 * roots, relative to the task file), or else its `repo` ("owner/name") under the mirror
 * directory (`--repos DIR`, CRUCIBLE_REPO_MIRRORS). The string is the line's error.
 */
function swebenchRepository(
  t: SwebenchTaskLine,
  baseDir: string,
  policy: ImportPathPolicy,
  mirrors: ResolvedMirrors | null,
): { repo: string; mirror: boolean; commitsIn: (field: string, commit: string) => string } | string {
  if (t.repo_path !== undefined) {
    // confined before git is asked anything: even "not a repository" would tell the caller about the server's disk
    const confined = confinedSource({ git: t.repo_path, commit: t.base_commit }, baseDir, policy, 'repo_path');
    if (typeof confined === 'string') return confined;
    const repo = (confined as { git: string }).git;
    if (!git(repo, ['rev-parse', '--git-dir'])) return `repo_path ${t.repo_path} is not a git repository (machines are offline: clone it locally first)`;
    return { repo, mirror: false, commitsIn: (field, commit) => `${field} ${commit} does not exist in ${t.repo_path} (fetch it, or check the id)` };
  }
  const slug = t.repo!; // the schema wants one of repo, repo_path
  const mirror = mirrorFor(mirrors, slug);
  if ('error' in mirror) return `instance ${t.instance_id}: ${mirror.error}`;
  return {
    repo: mirror.gitDir,
    mirror: true,
    commitsIn: (field, commit) =>
      `instance ${t.instance_id}: ${field} ${commit} does not exist in the mirror of ${slug} at ${mirror.path} (fetch it: git --git-dir ${mirror.gitDir} fetch --all; or check the id)`,
  };
}

/** A SWE-bench line as a crucible-repo line; checks what git can tell before anything is read. */
function fromSwebench(json: unknown, baseDir: string, policy: ImportPathPolicy, mirrors: ResolvedMirrors | null): CrucibleRepoTaskLine | string {
  const r = swebenchTaskLine.safeParse(json);
  if (!r.success) return describeIssues(r.error.issues);
  const t = r.data;
  const source = swebenchRepository(t, baseDir, policy, mirrors);
  if (typeof source === 'string') return source;
  const { repo } = source;
  if (!git(repo, ['cat-file', '-e', `${t.base_commit}^{commit}`])) return source.commitsIn('base_commit', t.base_commit);
  // not read into the workspace (the environment is built apart), but a mirror without it is not the repository the line was made from
  // (checked in mirrors only: a repo_path line keeps what it was before mirrors came)
  if (source.mirror && t.environment_setup_commit && !git(repo, ['cat-file', '-e', `${t.environment_setup_commit}^{commit}`]))
    return source.commitsIn('environment_setup_commit', t.environment_setup_commit);
  const line = crucibleRepoTaskLine.safeParse({
    id: t.instance_id,
    language: t.language,
    problem_statement: t.problem_statement,
    workspace: { git: repo, commit: t.base_commit },
    test_patch: t.test_patch,
    FAIL_TO_PASS: t.FAIL_TO_PASS,
    PASS_TO_PASS: t.PASS_TO_PASS,
    gold_patch: t.patch,
    ...(t.test_command ? { test_command: t.test_command } : {}),
    ...(t.setup !== undefined ? { setup: t.setup } : {}),
    ...(t.split ? { split: t.split } : {}),
    ...(t.difficulty ? { difficulty: t.difficulty } : {}),
    ...(t.env ? { env: t.env } : {}),
  });
  return line.success ? line.data : describeIssues(line.error.issues);
}

/** One line resolved: the workspace read and hashed, hidden tests as files, the gold patch checked. */
function parseRepoLine(
  json: unknown,
  format: RepoTaskFormat,
  baseDir: string,
  policy: ImportPathPolicy,
  caps: WorkspaceCaps,
  mirrors: ResolvedMirrors | null,
): ParsedRepoTask | string {
  let line: CrucibleRepoTaskLine;
  if (format === 'swebench') {
    const converted = fromSwebench(json, baseDir, policy, mirrors);
    if (typeof converted === 'string') return converted;
    line = converted;
  } else {
    const r = crucibleRepoTaskLine.safeParse(json);
    if (!r.success) return explain(r.error.issues as readonly Issue[]);
    const workspace = confinedSource(r.data.workspace, baseDir, policy, 'workspace');
    if (typeof workspace === 'string') return workspace;
    line = { ...r.data, workspace };
  }
  let task;
  const skippedLinks: string[] = [];
  try {
    task = resolveRepoTask(line, { baseDir, caps, skippedLinks });
  } catch (e) {
    return (e as Error).message;
  }
  // a link the tests run is not a detail to skip: the task would grade something else
  const testFiles = new Set([...task.failToPass, ...task.passToPass].map((id) => id.slice(0, id.indexOf('::'))));
  const linkedTests = skippedLinks.filter((p) => testFiles.has(p));
  if (linkedTests.length)
    return `${linkedTests.join(', ')} ${linkedTests.length > 1 ? 'are symbolic links' : 'is a symbolic link'} in the repository and a test file this task names; workspaces hold regular files only (make it a regular file in base_commit, or name the file the link points to)`;
  // a test id whose file is nowhere would only ever be "missing" at grading: a task that can never score 1
  const nowhere = (ids: string[]) =>
    ids.filter((id) => {
      const file = id.slice(0, id.indexOf('::'));
      return task.workspace[file] === undefined && task.hiddenTests[file] === undefined;
    });
  const lost = [...nowhere(task.failToPass).map((id) => `${id} (FAIL_TO_PASS)`), ...nowhere(task.passToPass).map((id) => `${id} (PASS_TO_PASS)`)];
  if (lost.length)
    return `test id(s) naming a file that is neither in the workspace nor in the hidden tests: ${lost.slice(0, 5).join(', ')}${lost.length > 5 ? `, … (${lost.length} in all)` : ''}; ids are FILE::NAME with FILE relative to the workspace root`;
  if (task.goldPatch) {
    try {
      applyWorkspacePatch(task.workspace, task.goldPatch);
    } catch (e) {
      return `the gold patch does not apply to the workspace: ${(e as Error).message}`;
    }
  }
  return {
    externalId: task.id,
    language: task.language,
    prompt: task.problemStatement,
    entryPoint: '', // repository tasks have no entry point; tasks.kind says which fields apply
    tests: { kind: 'repo' },
    risk: line.risk ?? 'routine',
    environmentName: task.environment,
    split: line.split ?? 'train',
    difficulty: null,
    demonstration: null,
    repo: {
      workspace: task.workspace,
      workspaceSha256: task.workspaceSha256,
      hiddenTests: task.hiddenTests,
      setup: task.setup,
      testCommand: task.testCommand,
      failToPass: task.failToPass,
      passToPass: task.passToPass,
      goldPatch: task.goldPatch,
      difficulty: line.difficulty ?? null,
      skippedLinks,
    },
  };
}

/**
 * Parse a crucible-repo or SWE-bench JSONL file. Relative paths in lines (workspace dirs,
 * tarballs, repo_path) are taken from `baseDir`, the task file's directory, and must resolve
 * inside `policy.roots` (server/paths/import-path-policy.ts). SWE-bench lines that name `repo`
 * and no `repo_path` read it from `mirrors` (resolved beforehand: repo-mirrors.ts). Every bad
 * line is reported with its 1-based number; callers import nothing unless `errors` is empty.
 */
export function parseRepoTaskFile(
  text: string,
  format: RepoTaskFormat,
  baseDir: string,
  policy: ImportPathPolicy,
  caps: WorkspaceCaps = DEFAULT_WORKSPACE_CAPS,
  mirrors: ResolvedMirrors | null = null,
): { tasks: ParsedRepoTask[]; errors: LineError[] } {
  const tasks: ParsedRepoTask[] = [];
  const errors: LineError[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      return void errors.push({ line, message: `not valid JSON (${(e as Error).message})` });
    }
    const nul = nulCharacterProblem(json, 'remove it (a binary workspace file goes in as {"base64": …})');
    if (nul) return void errors.push({ line, message: nul });
    const task = parseRepoLine(json, format, baseDir, policy, caps, mirrors);
    if (typeof task === 'string') return void errors.push({ line, message: task });
    const dup = seen.get(task.externalId);
    if (dup !== undefined) return void errors.push({ line, message: `duplicate task id "${task.externalId}" (first on line ${dup})` });
    seen.set(task.externalId, line);
    tasks.push(task);
  });
  if (tasks.length === 0 && errors.length === 0) errors.push({ line: 0, message: 'the file has no tasks' });
  return { tasks, errors };
}
