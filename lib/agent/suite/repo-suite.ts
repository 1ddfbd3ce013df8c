import fs from 'node:fs';
import path from 'node:path';
import { crucibleRepoTaskLine, type CrucibleRepoTaskLine, type WorkspaceFiles } from '@/core/repo-tasks';

/**
 * The built-in suite of repository tasks (tasks/repo-suite): one directory per task with
 * task.json (the line's fields but the workspace, hidden tests and gold patch), workspace/
 * (the repository as the agent sees it), hidden_tests/ (files added only at grading, paths
 * relative to the workspace root) and gold.patch (the reference solution as a git diff).
 */

// Where Next's server build evaluates this module (the console creates the suite on first use),
// import.meta.dirname is undefined; the server runs from the repository root.
const here = import.meta.dirname as string | undefined;
export const REPO_SUITE_DIR = here ? path.resolve(here, '../../../tasks/repo-suite') : path.resolve('tasks/repo-suite');

/** The fields task.json may hold; the rest comes from the task directory's files. */
const TREE_FIELDS = ['workspace', 'hidden_tests', 'gold_patch', 'test_patch'] as const;

export class RepoSuiteError extends Error {}

/** A directory tree as path → content: UTF-8 text as a string, anything else as base64. */
export function readTree(root: string): WorkspaceFiles {
  const files: WorkspaceFiles = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      // caches a local test run leaves behind are not part of the task
      if (entry.name === '__pycache__' || entry.name === '.pytest_cache' || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(relPath);
      else if (entry.isFile()) {
        const bytes = fs.readFileSync(path.join(root, relPath));
        const text = bytes.toString('utf8');
        const executable = (fs.statSync(path.join(root, relPath)).mode & 0o111) !== 0;
        files[relPath] =
          Buffer.from(text, 'utf8').equals(bytes) && !executable ? text : { base64: bytes.toString('base64'), ...(executable ? { executable } : {}) };
      } else throw new RepoSuiteError(`${path.join(root, relPath)}: only plain files and directories belong in a task (found a link or special file)`);
    }
  };
  walk('');
  return files;
}

/** Read one task directory into a validated crucible-repo line. */
export function loadRepoTask(taskDir: string): CrucibleRepoTaskLine {
  return loadRepoTaskDir(taskDir).line;
}

/**
 * Read one task directory; `extraFields` are task.json fields that are not the line's (a
 * corpus's own metadata, such as provenance): they are taken out before validation and given
 * back as `extra` (absent ones are left out).
 */
export function loadRepoTaskDir(taskDir: string, extraFields: readonly string[] = []): { line: CrucibleRepoTaskLine; extra: Record<string, unknown> } {
  const where = (file: string) => path.join(taskDir, file);
  const fail = (file: string, why: string): never => {
    throw new RepoSuiteError(`${where(file)}: ${why}`);
  };
  if (!fs.existsSync(where('task.json'))) fail('task.json', 'missing: every task directory has task.json, workspace/ and gold.patch');
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(fs.readFileSync(where('task.json'), 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return fail('task.json', `not valid JSON (${(e as Error).message})`);
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) fail('task.json', 'must hold a JSON object');
  for (const f of TREE_FIELDS) if (f in meta) fail('task.json', `"${f}" comes from the task directory's files, not task.json`);
  const extra: Record<string, unknown> = {};
  for (const f of extraFields) {
    if (f in meta) extra[f] = meta[f];
    delete meta[f];
  }
  if (meta.id !== path.basename(taskDir)) fail('task.json', `id "${String(meta.id)}" must equal the directory name "${path.basename(taskDir)}"`);
  if (!fs.statSync(where('workspace'), { throwIfNoEntry: false })?.isDirectory()) fail('workspace', 'missing: the repository the agent sees');
  if (!fs.existsSync(where('gold.patch'))) fail('gold.patch', 'missing: the reference solution as a git diff against workspace/');
  const hiddenDir = where('hidden_tests');
  const line = {
    ...meta,
    workspace: { files: readTree(where('workspace')) },
    hidden_tests: fs.existsSync(hiddenDir) ? readTree(hiddenDir) : {},
    gold_patch: fs.readFileSync(where('gold.patch'), 'utf8'),
  };
  const parsed = crucibleRepoTaskLine.safeParse(line);
  if (!parsed.success) fail('task.json', parsed.error.issues.map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; '));
  return { line: parsed.data!, extra };
}

/** Every task of the suite, sorted by id; ids are unique (they are directory names). */
export function loadRepoSuite(dir: string = REPO_SUITE_DIR): CrucibleRepoTaskLine[] {
  if (!fs.existsSync(dir)) throw new RepoSuiteError(`${dir}: no such directory (the built-in repository suite lives in tasks/repo-suite)`);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => loadRepoTask(path.join(dir, name)));
}

/** The suite as a crucible-repo JSONL file (one line per task). */
export function repoSuiteJsonl(dir: string = REPO_SUITE_DIR): string {
  return loadRepoSuite(dir)
    .map((t) => JSON.stringify(t))
    .join('\n')
    .concat('\n');
}
