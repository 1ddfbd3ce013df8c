import { describe, expect, it } from 'vitest';
import { classifyDiffLine, diffLines, diffStats } from './diff-lines';

// What lib/agent/workspace/workspace-diff.ts writes: git-style sections, 3 lines of context.
const patch = [
  'diff --git a/booking/intervals.py b/booking/intervals.py',
  '--- a/booking/intervals.py',
  '+++ b/booking/intervals.py',
  '@@ -2,3 +2,3 @@ def merge(intervals):',
  '     out = []',
  '-    for start, end in intervals:',
  '+    for start, end in sorted(intervals):',
  '--- not a header: a removed line reading "-- not a header"',
  '+++ an added line reading "++ …"',
  'diff --git a/notes.txt b/notes.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/notes.txt',
  '@@ -0,0 +1 @@',
  '+hello',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('diff line classification', () => {
  it('file headers, hunks, additions, removals, context and git metadata', () => {
    expect(diffLines(patch).map((l) => l.kind)).toEqual([
      'file',
      'file',
      'file',
      'hunk',
      'context',
      'del',
      'add',
      'del',
      'add',
      'file',
      'meta',
      'file',
      'file',
      'hunk',
      'add',
      'meta',
    ]);
  });

  it('"---"/"+++" are headers only before a hunk; a plain diff (no "diff --git") starts in its header', () => {
    expect(classifyDiffLine('--- a/x', true)).toBe('file');
    expect(classifyDiffLine('--- a/x', false)).toBe('del');
    expect(diffLines('--- x.py\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n').map((l) => l.kind)).toEqual(['file', 'file', 'hunk', 'del', 'add']);
  });

  it('counts files and changed lines (headers are not changes)', () => {
    expect(diffStats(patch)).toEqual({ files: ['booking/intervals.py', 'notes.txt'], added: 3, removed: 2 });
    expect(diffStats('')).toEqual({ files: [], added: 0, removed: 0 });
  });
});
