/**
 * Reading a unified diff (a workspace diff or an agent's patch, as lib/agent writes them)
 * line by line for display: which lines are added, removed, context, hunk or file headers, and
 * how big the diff is. Pure, so the rules are unit-tested.
 */

export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'context' | 'meta';

/** Headers that start a file's section or describe it (git's extended headers). */
const META = /^(index |similarity index |rename (from|to) |new file mode |deleted file mode |old mode |new mode |Binary files |\\ No newline)/;

/**
 * The kind of one diff line. `---`/`+++` are file headers only where a file's header is
 * expected (`inHeader`: after `diff --git` and before the first `@@`); inside a hunk a removed
 * line that reads "-- x" (so "--- x" in the diff) is a removal, not a header.
 */
export function classifyDiffLine(line: string, inHeader = false): DiffLineKind {
  if (line.startsWith('diff --git ')) return 'file';
  if (inHeader && (line.startsWith('--- ') || line.startsWith('+++ '))) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (inHeader && META.test(line)) return 'meta';
  if (line.startsWith('\\ ')) return 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'context';
}

export type DiffLine = { kind: DiffLineKind; text: string };

/** Every line of `patch` with its kind (a trailing newline adds no empty line). */
export function diffLines(patch: string): DiffLine[] {
  if (!patch) return [];
  const lines = patch.replace(/\n$/, '').split('\n');
  // before the first hunk is a header too: a plain (not git) diff starts with `---`/`+++`
  let inHeader = true;
  return lines.map((text) => {
    if (text.startsWith('diff --git ')) inHeader = true;
    else if (text.startsWith('@@')) inHeader = false;
    return { kind: classifyDiffLine(text, inHeader), text };
  });
}

/** The file a `diff --git a/P b/P` line names (its b/ side, or a/ for a deletion); null for other lines. */
export function diffFilePath(line: string): string | null {
  if (!line.startsWith('diff --git ')) return null;
  const m = / b\/(.+)$/.exec(line) ?? / a\/(.+?) b\//.exec(line);
  return m?.[1] ?? line.slice('diff --git '.length);
}

export type DiffStats = { files: string[]; added: number; removed: number };

/** The files a diff touches (b/ side, or a/ for a deletion) and its added / removed line counts. */
export function diffStats(patch: string): DiffStats {
  const files: string[] = [];
  let added = 0;
  let removed = 0;
  for (const l of diffLines(patch)) {
    const file = diffFilePath(l.text);
    if (file !== null) files.push(file);
    else if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { files, added, removed };
}
