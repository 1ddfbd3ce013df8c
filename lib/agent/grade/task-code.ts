import type { WorkspaceFiles } from '@/core/repo-tasks';
import { fileBytes } from '../workspace/workspace-file';
import { isProtectedPath } from './protected-paths';

/**
 * Layer 1 of grading (docs/agents.md#grading-layers): the task's own code files — test files,
 * conftests, helpers in test directories, hidden tests — are loaded from the runner's copy,
 * which it gets through its stdin (closed before any workspace code runs). The hidden ones
 * (the answers: the agent never saw them) never lie readable in the grading workspace: a
 * placeholder of the same name stands there, so pytest and node still find and collect them,
 * and code under test that reads test files to answer from their expected values reads only
 * the placeholder. The visible ones stay on disk: the agent read them all episode, and real
 * tests read their own source from disk (a C-level traceback of a test's line).
 */

const CODE = { python: /\.py$/, javascript: /\.[cm]?[jt]s$/ } as const;

/** The task's own code files among the files to grade, for one language's runner. */
export function taskCodeFiles(files: WorkspaceFiles, hiddenTests: WorkspaceFiles, testFiles: string[], language: keyof typeof CODE): string[] {
  return Object.keys(files).filter((p) => CODE[language].test(p) && isProtectedPath(p, hiddenTests, testFiles));
}

/** What lies on disk under a task file's name while grading. */
export function placeholderOf(p: string): string {
  const note = "hidden while grading: Crucible's runner loads the task's files from its own copy";
  return CODE.python.test(p) ? `# ${note}\n` : `// ${note}\n`;
}

/** The files as the grading sandbox gets them: the task's code files as placeholders. */
export function withPlaceholders(files: WorkspaceFiles, taskFiles: string[]): WorkspaceFiles {
  const out = { ...files };
  for (const p of taskFiles) out[p] = placeholderOf(p);
  return out;
}

/**
 * The task's files as one binary blob for node's runner (after the job line on stdin): per
 * file a 4-byte big-endian length and the absolute path (UTF-8), then a 4-byte length and the
 * bytes. The reporter decodes it byte by byte (no JavaScript string holds a test's source in
 * the heap the code under test shares) and hands the bytes to the grader's module hooks.
 */
export function sourcesBlob(files: WorkspaceFiles, taskFiles: string[], dir: string): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  for (const p of taskFiles) {
    const name = Buffer.from(`${dir}/${p}`, 'utf8');
    const bytes = fileBytes(files[p]!);
    parts.push(u32(name.length), name, u32(bytes.length), bytes);
  }
  return Buffer.concat(parts);
}
