import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  crucibleRepoTaskLine,
  swebenchTaskLine,
  type CrucibleRepoTaskLine,
  type RepoTaskDifficulty,
  type RepoTaskFormat,
  type WorkspaceFiles,
} from '@/core/repo-tasks';
import { describeIssues } from '@/server/errors';
import { resolveRepoTask } from '@/workers/agent/workspace/resolve-task';
import { applyWorkspacePatch } from '@/workers/agent/workspace/workspace-diff';
import type { LineError, ParsedTask } from './formats';

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
    execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** A SWE-bench line as a crucible-repo line; checks what git can tell before anything is read. */
function fromSwebench(json: unknown, baseDir: string): CrucibleRepoTaskLine | string {
  const r = swebenchTaskLine.safeParse(json);
  if (!r.success) return describeIssues(r.error.issues);
  const t = r.data;
  const repo = path.resolve(baseDir, t.repo_path);
  if (!git(repo, ['rev-parse', '--git-dir'])) return `repo_path ${t.repo_path} is not a git repository (machines are offline: clone it locally first)`;
  if (!git(repo, ['cat-file', '-e', `${t.base_commit}^{commit}`]))
    return `base_commit ${t.base_commit} does not exist in ${t.repo_path} (fetch it, or check the id)`;
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
    // not a SWE-bench field: lets a dataset name the environment its tests need
    ...('env' in t ? { env: t.env } : {}),
  });
  return line.success ? line.data : describeIssues(line.error.issues);
}

/** One line resolved: the workspace read and hashed, hidden tests as files, the gold patch checked. */
function parseRepoLine(json: unknown, format: RepoTaskFormat, baseDir: string): ParsedRepoTask | string {
  let line: CrucibleRepoTaskLine;
  if (format === 'swebench') {
    const converted = fromSwebench(json, baseDir);
    if (typeof converted === 'string') return converted;
    line = converted;
  } else {
    const r = crucibleRepoTaskLine.safeParse(json);
    if (!r.success) return explain(r.error.issues as readonly Issue[]);
    line = r.data;
  }
  let task;
  try {
    task = resolveRepoTask(line, { baseDir });
  } catch (e) {
    return (e as Error).message;
  }
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
    },
  };
}

/**
 * Parse a crucible-repo or SWE-bench JSONL file. Relative paths in lines (workspace dirs,
 * tarballs, repo_path) are taken from `baseDir`, the task file's directory. Every bad line is
 * reported with its 1-based number; callers import nothing unless `errors` is empty.
 */
export function parseRepoTaskFile(text: string, format: RepoTaskFormat, baseDir: string): { tasks: ParsedRepoTask[]; errors: LineError[] } {
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
    const task = parseRepoLine(json, format, baseDir);
    if (typeof task === 'string') return void errors.push({ line, message: task });
    const dup = seen.get(task.externalId);
    if (dup !== undefined) return void errors.push({ line, message: `duplicate task id "${task.externalId}" (first on line ${dup})` });
    seen.set(task.externalId, line);
    tasks.push(task);
  });
  if (tasks.length === 0 && errors.length === 0) errors.push({ line: 0, message: 'the file has no tasks' });
  return { tasks, errors };
}
