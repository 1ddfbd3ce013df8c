import { REPO_SUITE_DIR, repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { parseRepoTaskFile, type ParsedRepoTask } from './repo-formats';

/** The built-in suite of repository tasks (tasks/repo-suite), created in the database on first use like `builtin`. */
export const REPO_SUITE = 'repo-suite';

export const REPO_SUITE_DESCRIPTION =
  'Built-in repository tasks for tool-using agents: 40 small Python (pytest) and JavaScript (node:test) bugs and features with hidden tests and gold patches (train + held-out splits)';

/** The suite's tasks as an import of its files would store them (workspaces inline, hashed). */
export function repoSuiteTasks(): ParsedRepoTask[] {
  const { tasks, errors } = parseRepoTaskFile(repoSuiteJsonl(), 'crucible-repo', REPO_SUITE_DIR, { roots: [REPO_SUITE_DIR], via: 'cli', of: 'tasks' });
  if (errors.length)
    throw new Error(`the built-in repository suite (${REPO_SUITE_DIR}) has bad tasks: ${errors.map((e) => `line ${e.line}: ${e.message}`).join('; ')}`);
  return tasks;
}
