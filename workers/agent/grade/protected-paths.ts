import type { WorkspaceFiles } from '@/core/repo-tasks';
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
/** Files that run code at interpreter start or stand in for sources; never taken from the agent. */
const INJECTION = [/^sitecustomize\.py$/, /^usercustomize\.py$/, /\.pth$/, /\.py[co]$/, /^__pycache__$/, /^\.pytest_cache$/];

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
  return hiddenTests[p] !== undefined || testFiles.includes(p) || isTestPath(p) || isInjectionPath(p);
}

const same = (a: WorkspaceFiles[string] | undefined, b: WorkspaceFiles[string] | undefined) =>
  a === undefined || b === undefined ? a === b : fileExecutable(a) === fileExecutable(b) && fileBytes(a).equals(fileBytes(b));

/**
 * The files to grade: the agent's version of everything but protected paths, which keep
 * their pristine content (or stay absent), with the hidden tests on top. `rejectedPaths` lists
 * every agent change that was dropped.
 */
export function protectTestFiles(
  pristine: WorkspaceFiles,
  patched: WorkspaceFiles,
  hiddenTests: WorkspaceFiles,
  testFiles: string[] = [],
): { files: WorkspaceFiles; rejectedPaths: string[] } {
  const files: WorkspaceFiles = {};
  const rejectedPaths: string[] = [];
  for (const p of [...new Set([...Object.keys(pristine), ...Object.keys(patched)])].sort()) {
    if (!isProtectedPath(p, hiddenTests, testFiles)) {
      if (patched[p] !== undefined) files[p] = patched[p];
      continue;
    }
    if (pristine[p] !== undefined) files[p] = pristine[p];
    if (!same(pristine[p], patched[p])) rejectedPaths.push(p);
  }
  Object.assign(files, hiddenTests);
  return { files, rejectedPaths };
}
