import type { WorkspaceFiles } from '@/core/repo-tasks';
import { byPath } from '../workspace/workspace-diff';
import { fileBytes, fileExecutable } from '../workspace/workspace-file';

/**
 * Which files of a workspace belong to the task's tests, so the agent's changes to them are
 * dropped at grading: test files and directories, test configuration, and files that change
 * how Python or node start or collect (conftest.py, sitecustomize.py, .pth, bytecode…).
 */

const TEST_DIRS = new Set(['test', 'tests', 'testing', '__tests__']);
const TEST_FILE = [/^test_.*\.py$/, /_test\.py$/, /^test\.py$/, /\.(test|spec)\.[cm]?[jt]sx?$/, /_test\.[cm]?js$/, /^test\.[cm]?js$/];
/** Configuration that decides what tests run and how (restored when the task has it, removed when the agent adds it). */
const TEST_CONFIG = new Set(['conftest.py', 'pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'package.json', '.noderc', '.mocharc.json']);
/**
 * Files that run code at interpreter start or stand in for sources; never taken from the agent.
 * `.git` too: the agent's one-commit repository is not part of its work, and a planted `.git`
 * could steer a test or tool that reads one (setuptools-scm versions, `git ls-files`).
 */
const INJECTION = [/^sitecustomize\.py$/, /^usercustomize\.py$/, /\.pth$/, /\.py[co]$/, /^__pycache__$/, /^\.pytest_cache$/, /^\.git$/];

export function isTestPath(p: string): boolean {
  const parts = p.split('/');
  const base = parts.at(-1)!;
  return parts.slice(0, -1).some((d) => TEST_DIRS.has(d)) || TEST_FILE.some((r) => r.test(base)) || TEST_CONFIG.has(base);
}

export function isInjectionPath(p: string): boolean {
  return p.split('/').some((seg) => INJECTION.some((r) => r.test(seg)));
}

/** A path grading takes from the task, never from the agent. */
export function isProtectedPath(p: string, hiddenTests: WorkspaceFiles, testFiles: string[]): boolean {
  return Object.hasOwn(hiddenTests, p) || testFiles.includes(p) || isTestPath(p) || isInjectionPath(p);
}

const same = (a: WorkspaceFiles[string] | undefined, b: WorkspaceFiles[string] | undefined) =>
  a === undefined || b === undefined ? a === b : fileExecutable(a) === fileExecutable(b) && fileBytes(a).equals(fileBytes(b));

/** Every proper ancestor directory of a path: `a/b/c` → `a`, `a/b`. */
const ancestors = (p: string) =>
  p
    .split('/')
    .slice(0, -1)
    .map((_, i, parts) => parts.slice(0, i + 1).join('/'));

/**
 * The files to grade: the agent's version of everything but protected paths, which keep
 * their pristine content (or stay absent), with the hidden tests on top. `rejectedPaths` lists
 * every agent change that was dropped.
 *
 * A workspace is a tree, so a path cannot be both a file and a directory. The agent can make
 * one that the task's files then contradict: `pyproject.toml` replaced by a directory
 * holding `pyproject.toml/x`, or `tests/` replaced by a file `tests`, while the task's
 * `pyproject.toml` or `tests/test_x.py` is restored. The task's files win: an agent file
 * lying under one of them, or standing where one of them needs a directory, is dropped and
 * listed too (so is the later of two agent files that contradict each other, which only a
 * hand-made patch can hold). Writing the grading workspace then cannot fail on the agent's
 * account.
 */
export function protectTestFiles(
  pristine: WorkspaceFiles,
  patched: WorkspaceFiles,
  hiddenTests: WorkspaceFiles,
  testFiles: string[] = [],
): { files: WorkspaceFiles; rejectedPaths: string[] } {
  const task = new Map<string, WorkspaceFiles[string]>();
  const agent: string[] = [];
  const rejected = new Set<string>();
  const paths = [...new Set([...Object.keys(pristine), ...Object.keys(patched)])].sort();
  for (const p of paths) {
    if (!isProtectedPath(p, hiddenTests, testFiles)) {
      if (patched[p] !== undefined) agent.push(p);
      continue;
    }
    if (pristine[p] !== undefined) task.set(p, pristine[p]);
    if (!same(pristine[p], patched[p])) rejected.add(p);
  }
  for (const [p, f] of Object.entries(hiddenTests)) task.set(p, f);
  const taskDirs = new Set([...task.keys()].flatMap(ancestors));
  const kept = new Set<string>();
  // byte order puts a path right before the paths below it, so an agent file's ancestors are decided first
  for (const p of agent.sort(byPath)) {
    if (!task.has(p) && !taskDirs.has(p) && !ancestors(p).some((d) => task.has(d) || kept.has(d))) kept.add(p);
    else rejected.add(p);
  }
  const files: WorkspaceFiles = {};
  for (const p of paths) {
    if (kept.has(p)) files[p] = patched[p]!;
    else if (task.has(p)) files[p] = task.get(p)!;
  }
  Object.assign(files, hiddenTests);
  return { files, rejectedPaths: [...rejected].sort() };
}
