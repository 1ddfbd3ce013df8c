import type { RepoTask } from '@/core/repo-tasks';

/**
 * The agent's first user message on a repository task: the problem statement, then where it
 * is (a git repository at its base commit), the repository's layout (the top two levels, from
 * the task's own files) and how to run its tests (the task's `test_command`, else the usual
 * command for its language). Pure: episodes, the prompt-length check at launch and exports all
 * derive the same text from the same task.
 */

/** The command an agent runs the tests with when the task records none. */
export const DEFAULT_TEST_COMMANDS: Record<RepoTask['language'], string> = {
  python: 'python3 -m pytest -q',
  javascript: 'node --test',
};

/** Most lines of the layout; past it, one line says how many entries were left out. */
export const LAYOUT_MAX_LINES = 40;

export type TaskPromptInput = Pick<RepoTask, 'problemStatement' | 'language' | 'testCommand' | 'workspace'>;

export const taskTestCommand = (task: Pick<RepoTask, 'language' | 'testCommand'>) => task.testCommand?.trim() || DEFAULT_TEST_COMMANDS[task.language];

type Dir = { files: string[]; dirs: Map<string, Dir>; count: number };
const newDir = (): Dir => ({ files: [], dirs: new Map(), count: 0 });

/** Longest layout line; past it, the line says how many entries it left out. */
export const LAYOUT_LINE_CHARS = 300;

/**
 * The top two levels of the workspace, compactly: the root's files on one line, then one line
 * per top-level directory with its entries (a directory below that with how many files it holds).
 */
export function workspaceLayout(paths: readonly string[], maxLines = LAYOUT_MAX_LINES): string[] {
  const root = newDir();
  for (const p of paths) {
    const parts = p.split('/');
    let d = root;
    d.count++;
    for (const seg of parts.slice(0, -1)) {
      if (!d.dirs.has(seg)) d.dirs.set(seg, newDir());
      d = d.dirs.get(seg)!;
      d.count++;
    }
    d.files.push(parts.at(-1)!);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const names = (d: Dir) =>
    [
      ...[...d.dirs.entries()].map(([k, sub]) => ({ k, text: `${k}/ (${sub.count} file${sub.count === 1 ? '' : 's'})` })),
      ...d.files.map((f) => ({ k: f, text: f })),
    ]
      .sort((a, b) => byName(a.k, b.k))
      .map((e) => e.text);
  const line = (head: string, items: string[]) => {
    let out = head;
    for (let i = 0; i < items.length; i++) {
      const next = `${out}${out ? ' ' : ''}${items[i]}`;
      if (next.length > LAYOUT_LINE_CHARS) return `${out} … (${items.length - i} more)`;
      out = next;
    }
    return out;
  };
  const lines: string[] = [];
  if (root.files.length) lines.push(line('', [...root.files].sort(byName)));
  for (const k of [...root.dirs.keys()].sort(byName)) lines.push(line(`${k}/:`, names(root.dirs.get(k)!)));
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines - 1);
  return [...kept, `… ${lines.length - kept.length} more directories`];
}

export function agentTaskPrompt(task: TaskPromptInput): string {
  const layout = workspaceLayout(Object.keys(task.workspace));
  return [
    task.problemStatement.trim(),
    '',
    'The repository is the current directory, a git checkout of its base commit (git diff shows your changes):',
    ...layout,
    `Run the tests with: ${taskTestCommand(task)}`,
  ].join('\n');
}
