import type { WorkspaceFiles } from '@/core/repo-tasks';
import { fileBytes } from '../workspace/workspace-file';

/**
 * pytest's command line for grading a Python repository: the repository's own configuration
 * (pytest.ini, pyproject.toml, tox.ini, setup.cfg — restored from the pristine workspace
 * before grading, so it is the task's, never the agent's) is found and read by pytest itself,
 * as `python -m pytest` in the repository would; only what would load code the grader does
 * not control is overridden: `addopts` (plugins, coverage, xdist) and `required_plugins`.
 * From addopts, the import mode is kept (it decides how test modules are named).
 *
 * A src-layout repository (`src/<package>/__init__.py`) whose configuration does not set
 * `pythonpath` gets `src` on it: the tests then import the package as they would after
 * `pip install -e .`, which is how such repositories are meant to be tested.
 */

const CONFIG_FILES = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];

function text(files: WorkspaceFiles, p: string): string {
  const f = files[p];
  return f === undefined ? '' : fileBytes(f).toString('utf8');
}

/** The repository's pytest configuration text (every candidate file at the root, concatenated). */
function configText(files: WorkspaceFiles): string {
  return CONFIG_FILES.map((p) => text(files, p)).join('\n');
}

/** `--import-mode=…` as the repository's addopts give it, if they do. */
export function importModeOf(config: string): string | null {
  const m = /--import-mode(?:=|\s+)["']?(prepend|append|importlib)\b/.exec(config);
  return m ? m[1]! : null;
}

/** Whether the workspace is a src layout: a package directly under src/. */
export function srcLayout(files: WorkspaceFiles): boolean {
  return Object.keys(files).some((p) => /^src\/[^/]+\/__init__\.py$/.test(p));
}

export function pytestArgs(files: WorkspaceFiles, workspaceDir: string, testFiles: string[]): string[] {
  const config = configText(files);
  const args = ['--rootdir', workspaceDir, '--confcutdir', workspaceDir, '-o', 'addopts=', '-o', 'required_plugins=', '-p', 'no:cacheprovider'];
  // the runner compiles the task's files itself (pytest's rewriting included): pytest's own
  // rewriting hook would read them from disk, where only placeholders lie
  args.push('--assert=plain');
  const mode = importModeOf(config);
  if (mode) args.push(`--import-mode=${mode}`);
  args.push('-q', '-rN', ...testFiles);
  return args;
}

/**
 * Directories (workspace-relative) the runner puts on sys.path before pytest starts: `src` for
 * a src layout whose configuration does not set `pythonpath` (pytest 7.2's own `-o pythonpath`
 * fails without an ini file, and which file pytest picks is pytest's business).
 */
export function extraPythonPath(files: WorkspaceFiles): string[] {
  return !/^\s*pythonpath\s*=/m.test(configText(files)) && srcLayout(files) ? ['src'] : [];
}
