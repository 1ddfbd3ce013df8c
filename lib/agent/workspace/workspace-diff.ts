import { applyPatch, formatPatch, parsePatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { workspacePath, type WorkspaceFiles } from '@/core/repo-tasks';
import { fileBytes, fileExecutable, fileText, makeFile, WorkspaceError } from './workspace-file';

/**
 * Workspaces as diffs: the agent's changes (what grading applies to a fresh pristine copy)
 * and the task's test_patch / gold_patch (applied to the workspace). Git-style headers, so
 * `git apply` reads what we write and we read what `git diff` writes.
 */

const mode = (executable: boolean) => (executable ? '100755' : '100644');

/** Byte order of paths, the same everywhere (hash, diff, listings). */
export const byPath = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The unified diff turning `before` into `after`, one `diff --git a/P b/P` section per changed
 * file (new/deleted file and mode-change headers as git writes them). Binary files (not UTF-8,
 * or holding NUL) on either side are listed in `binarySkipped` and left out of the patch.
 */
export function diffWorkspaces(before: WorkspaceFiles, after: WorkspaceFiles): { patch: string; binarySkipped: string[] } {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(byPath);
  const sections: StructuredPatch[] = [];
  const binarySkipped: string[] = [];
  for (const p of paths) {
    const a = before[p];
    const b = after[p];
    if (a !== undefined && b !== undefined && fileExecutable(a) === fileExecutable(b) && fileBytes(a).equals(fileBytes(b))) continue;
    const aText = a === undefined ? '' : fileText(a);
    const bText = b === undefined ? '' : fileText(b);
    if (aText === null || bText === null) {
      binarySkipped.push(p);
      continue;
    }
    if (a === undefined) {
      sections.push({
        ...structuredPatch('/dev/null', `b/${p}`, '', bText, undefined, undefined, { context: 3 }),
        isGit: true,
        isCreate: true,
        newMode: mode(fileExecutable(b!)),
      });
    } else if (b === undefined) {
      sections.push({
        ...structuredPatch(`a/${p}`, '/dev/null', aText, '', undefined, undefined, { context: 3 }),
        isGit: true,
        isDelete: true,
        oldMode: mode(fileExecutable(a)),
      });
    } else {
      const s: StructuredPatch = { ...structuredPatch(`a/${p}`, `b/${p}`, aText, bText, undefined, undefined, { context: 3 }), isGit: true };
      if (fileExecutable(a) !== fileExecutable(b)) Object.assign(s, { oldMode: mode(fileExecutable(a)), newMode: mode(fileExecutable(b)) });
      sections.push(s);
    }
  }
  return { patch: sections.length ? formatPatch(sections) : '', binarySkipped };
}

/** A patch's file name as a workspace path: `a/`/`b/` prefixes dropped, `..` and absolute paths refused. */
function patchPath(name: string | undefined, stripPrefix: boolean, section: number): string | null {
  if (name === undefined || name === '/dev/null') return null;
  let p = name;
  if (stripPrefix && (p.startsWith('a/') || p.startsWith('b/'))) p = p.slice(2);
  const ok = workspacePath.safeParse(p);
  if (!ok.success) {
    throw new WorkspaceError(
      `patch file ${section + 1} names "${name}": ${ok.error.issues[0]?.message ?? 'not a workspace path'}; patches may only touch files inside the workspace`,
    );
  }
  return p;
}

const hunkLabel = (h: StructuredPatchHunk, i: number) => `hunk ${i + 1} (@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@)`;

/** Apply one file's hunks; on failure name the first hunk that does not fit. */
function applyHunks(source: string, section: StructuredPatch, file: string): string {
  if (section.hunks.length === 0) return source;
  const whole = applyPatch(source, section);
  if (whole !== false) return whole;
  // find which hunk does not fit, applying them one at a time with the offset so far
  let text = source;
  let delta = 0;
  for (const [i, h] of section.hunks.entries()) {
    const one = applyPatch(text, { ...section, hunks: [{ ...h, oldStart: h.oldStart + delta }] });
    if (one === false) {
      const want = h.lines
        .filter((l) => l.startsWith(' ') || l.startsWith('-'))
        .slice(0, 3)
        .map((l) => l.slice(1));
      throw new WorkspaceError(
        `patch does not apply to ${file}: ${hunkLabel(h, i)} does not match the file (expected lines starting ${JSON.stringify(want)}); make the diff against the pristine workspace`,
      );
    }
    text = one;
    delta += h.newLines - h.oldLines;
  }
  throw new WorkspaceError(`patch does not apply to ${file}: its hunks overlap or are out of order`);
}

/**
 * `files` with a unified diff applied (git-style or plain `---`/`+++`), as a new object.
 * Throws a WorkspaceError naming the file and hunk that does not apply, or the path that
 * leaves the workspace; the input is never modified.
 */
export function applyWorkspacePatch(files: WorkspaceFiles, patch: string): WorkspaceFiles {
  const out: WorkspaceFiles = { ...files };
  if (patch.trim() === '') return out;
  let sections: StructuredPatch[];
  try {
    sections = parsePatch(patch);
  } catch (e) {
    throw new WorkspaceError(`the patch is not a unified diff: ${(e as Error).message}`);
  }
  for (const [i, s] of sections.entries()) {
    if (s.isBinary) throw new WorkspaceError(`patch file ${i + 1} (${s.newFileName ?? s.oldFileName}) is a binary diff; only text diffs can be applied`);
    const prefixed =
      s.isGit ||
      (((s.oldFileName ?? '').startsWith('a/') || s.oldFileName === '/dev/null') && ((s.newFileName ?? '').startsWith('b/') || s.newFileName === '/dev/null'));
    const from = patchPath(s.oldFileName, prefixed, i);
    const to = patchPath(s.newFileName, prefixed, i);
    const isCreate = s.isCreate === true || (from === null && !s.isDelete);
    const isDelete = s.isDelete === true || (to === null && !s.isCreate);
    if (from === null && to === null) {
      if (s.hunks.length === 0) continue; // an empty section (e.g. text between files)
      throw new WorkspaceError(`patch file ${i + 1} has no file name; each file needs "--- a/PATH" and "+++ b/PATH" lines`);
    }
    if (isCreate) {
      const p = to ?? from!;
      if (out[p] !== undefined) throw new WorkspaceError(`patch creates ${p}, which already exists in the workspace`);
      const text = applyHunks('', s, p);
      out[p] = makeFile(Buffer.from(text, 'utf8'), s.newMode === '100755');
      continue;
    }
    const src = from ?? to!;
    const existing = out[src];
    if (existing === undefined) throw new WorkspaceError(`patch changes ${src}, which is not in the workspace`);
    const text = fileText(existing);
    if (text === null) throw new WorkspaceError(`patch changes ${src}, a binary file; text diffs cannot apply to it`);
    const result = applyHunks(text, s, src);
    if (isDelete) {
      if (result !== '') throw new WorkspaceError(`patch deletes ${src}, but the file has content the patch does not remove`);
      delete out[src];
      continue;
    }
    const dest = to ?? src;
    if (dest !== src) {
      if (out[dest] !== undefined) throw new WorkspaceError(`patch renames ${src} to ${dest}, which already exists`);
      delete out[src];
    }
    const executable = s.newMode !== undefined ? s.newMode === '100755' : fileExecutable(existing);
    out[dest] = makeFile(Buffer.from(result, 'utf8'), executable);
  }
  return out;
}
