import { parsePatch } from 'diff';
import type { WorkspaceFiles } from '@/core/repo-tasks';
import type { ScriptStep } from '../policies/scripted';
import { applyWorkspacePatch } from '../workspace/workspace-diff';
import { fileText } from '../workspace/workspace-file';

/** How many times `needle` occurs in `text`, not overlapping (what `str_replace` refuses above 1). */
function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

const strip = (p: string | undefined) => (p ?? '').replace(/^[ab]\//, '');

/**
 * A task's gold patch as the tool calls an agent would make: one `str_replace` per hunk, cut
 * to the lines that change and widened by context lines only as far as `old_str` needs to be
 * unique in the file at that point (the tool refuses an ambiguous one), a `write_file` per new
 * file, then `submit`. The demonstrations for SFT on gold trajectories (the SWE-Gym recipe with
 * the reference fix in place of a strong model's): short, so a small model's context holds them.
 *
 * Throws where the patch cannot be said this way (a deleted, renamed or binary file), naming it.
 * The script is checked by replaying it on `workspace`: it must give what the patch gives.
 */
export function goldScript(workspace: WorkspaceFiles, goldPatch: string): ScriptStep[] {
  const steps: ScriptStep[] = [];
  const current = new Map<string, string>();
  for (const [i, s] of parsePatch(goldPatch).entries()) {
    if (s.hunks.length === 0) continue;
    const from = s.oldFileName === '/dev/null' ? null : strip(s.oldFileName);
    const to = s.newFileName === '/dev/null' ? null : strip(s.newFileName);
    if (to === null || (from !== null && from !== to) || s.isBinary)
      throw new Error(`gold patch file ${i + 1} (${from ?? to}) deletes, renames or is binary: a gold script writes and edits text files only`);
    if (from === null) {
      steps.push({
        name: 'write_file',
        arguments: { path: to, content: s.hunks.flatMap((h) => h.lines.filter((l) => l.startsWith('+')).map((l) => `${l.slice(1)}\n`)).join('') },
      });
      continue;
    }
    if (!current.has(to)) {
      const f = workspace[to];
      const text = f === undefined ? null : fileText(f);
      if (text === null) throw new Error(`gold patch changes ${to}, which is not a text file in the workspace`);
      current.set(to, text);
    }
    for (const h of s.hunks) {
      const lines = h.lines.filter((l) => !l.startsWith('\\'));
      const oldLines = lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1));
      const newLines = lines.filter((l) => !l.startsWith('-')).map((l) => l.slice(1));
      // the changed region: what is left after the common leading and trailing lines
      let pre = 0;
      while (pre < oldLines.length && pre < newLines.length && oldLines[pre] === newLines[pre]) pre++;
      let post = 0;
      while (post < oldLines.length - pre && post < newLines.length - pre && oldLines.at(-1 - post) === newLines.at(-1 - post)) post++;
      const text = current.get(to)!;
      let chosen: { oldStr: string; newStr: string } | null = null;
      for (let k = 0; k <= Math.max(pre, post) && !chosen; k++) {
        const a = Math.max(0, pre - k);
        const o = oldLines.slice(a, oldLines.length - Math.max(0, post - k)).join('\n');
        const n = newLines.slice(a, newLines.length - Math.max(0, post - k)).join('\n');
        if (o.trim() !== '' && occurrences(text, o) === 1) chosen = { oldStr: o, newStr: n };
      }
      if (!chosen) throw new Error(`gold patch hunk ${h.oldStart} of ${to}: no stretch of its lines occurs exactly once in the file`);
      current.set(
        to,
        text.replace(chosen.oldStr, () => chosen.newStr),
      );
      steps.push({ name: 'str_replace', arguments: { path: to, old_str: chosen.oldStr, new_str: chosen.newStr } });
    }
  }
  const expected = applyWorkspacePatch(workspace, goldPatch);
  for (const [p, text] of current) {
    if (fileText(expected[p]!) !== text) throw new Error(`the gold script for ${p} does not give what the gold patch gives`);
  }
  steps.push({ name: 'submit', arguments: {} });
  return steps;
}
