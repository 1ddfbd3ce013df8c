import { capText } from './output-caps';
import { readSandboxFile, SandboxFileError, writeSandboxFile } from './sandbox-files';
import type { ToolArgs } from './tool-definitions';
import type { ToolContext } from './execute-tool';

/**
 * The editor tools agents are trained with (SWE-agent / OpenHands / Anthropic's editor):
 * `view` a file with line numbers or a directory's tree, `insert` after a line, `undo_edit`
 * the last edit of a file, and `think`. Edits record the file's previous content in the
 * episode's history (ToolContext.edits) so `undo_edit` can put it back.
 */
type Out = { output: string };
type Path = { path: string; relative: string };

const DIRECTORY_LISTING =
  // two levels below the directory, hidden entries left out; directories marked with a slash
  'cd -- "$1" || exit 2; find . -mindepth 1 -maxdepth 2 -not -path "*/.*" \\( -type d -printf "%p/\\n" -o -printf "%p\\n" \\) | sort';

/** Text of a file; a missing file is null (for the edit history). */
export async function currentText(ctx: ToolContext, p: Path, asText: (b: Buffer, shown: string) => string): Promise<string | null> {
  try {
    return asText(await readSandboxFile(ctx.sandbox, ctx.workspaceDir, p.path, p.relative), p.relative);
  } catch (e) {
    if (e instanceof SandboxFileError && /^no such file/.test(e.message)) return null;
    throw e;
  }
}

export function recordEdit(ctx: ToolContext, p: Path, before: string | null): void {
  if (!ctx.edits) return;
  const stack = ctx.edits.get(p.relative) ?? [];
  stack.push(before);
  ctx.edits.set(p.relative, stack);
}

/** `cat -n` numbering: the line number right-aligned in 6 columns, a tab, the line. */
export function numbered(lines: string[], first: number): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');
}

export async function view(ctx: ToolContext, p: Path, a: ToolArgs['view'], asText: (b: Buffer, shown: string) => string): Promise<Out> {
  const dir = await ctx.sandbox.exec(['sh', '-c', `[ -d "$1" ] || exit 3; ${DIRECTORY_LISTING}`, 'sh', p.path], { cwd: ctx.workspaceDir, timeoutMs: 30_000 });
  if (dir.status === 'sandbox_error' || dir.status === 'env_mismatch') throw new Error(dir.error ?? dir.status);
  if (dir.exitCode !== 3) {
    if (dir.status !== 'ok') throw new SandboxFileError(`cannot list ${p.relative || '.'}: ${dir.stderr.trim() || dir.status}`);
    if (a.start_line !== undefined || a.end_line !== undefined)
      throw new SandboxFileError(`${p.relative || '.'} is a directory; start_line and end_line apply to files`);
    const listing = dir.stdout.trim();
    return {
      output: capText(`files and directories in ${p.relative || '.'}, two levels deep (hidden ones left out):\n${listing || '(empty)'}`, ctx.limits.outputBytes)
        .text,
    };
  }
  const text = asText(await readSandboxFile(ctx.sandbox, ctx.workspaceDir, p.path, p.relative), p.relative);
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const from = a.start_line ?? 1;
  const last = a.end_line ?? lines.length;
  const to = last === -1 ? lines.length : last;
  if (from > Math.max(lines.length, 1)) throw new SandboxFileError(`${p.relative} has ${lines.length} lines; start_line ${from} is past the end`);
  if (to < from) throw new SandboxFileError(`end_line ${to} is before start_line ${from}`);
  return { output: capText(numbered(lines.slice(from - 1, Math.min(to, lines.length)), from), ctx.limits.outputBytes).text };
}

export async function insert(ctx: ToolContext, p: Path, a: ToolArgs['insert'], asText: (b: Buffer, shown: string) => string): Promise<Out> {
  const text = await currentText(ctx, p, asText);
  if (text === null) throw new SandboxFileError(`no such file: ${p.relative}`);
  const lines = text.split('\n');
  const count = text.endsWith('\n') ? lines.length - 1 : lines.length;
  if (a.insert_line > count) throw new SandboxFileError(`${p.relative} has ${count} lines; insert_line must be 0 to ${count}`);
  const added = a.new_str.endsWith('\n') ? a.new_str.slice(0, -1).split('\n') : a.new_str.split('\n');
  lines.splice(a.insert_line, 0, ...added);
  recordEdit(ctx, p, text);
  writeSandboxFile(ctx.sandbox, p.path, p.relative, lines.join('\n'));
  return { output: `inserted ${added.length} line${added.length === 1 ? '' : 's'} after line ${a.insert_line} of ${p.relative}` };
}

export async function undoEdit(ctx: ToolContext, p: Path): Promise<Out> {
  const stack = ctx.edits?.get(p.relative);
  const before = stack?.pop();
  if (before === undefined) throw new SandboxFileError(`no edit of ${p.relative} to undo in this episode`);
  if (before === null) {
    // the edit created the file: undoing it removes the file again, as the sandbox's own user
    const r = await ctx.sandbox.exec(['rm', '-f', '--', p.path], { cwd: ctx.workspaceDir, timeoutMs: 10_000 });
    if (r.status === 'sandbox_error' || r.status === 'env_mismatch') throw new Error(r.error ?? r.status);
    return { output: `undid the last edit of ${p.relative}: it did not exist before, so it was removed` };
  }
  writeSandboxFile(ctx.sandbox, p.path, p.relative, before);
  return { output: `undid the last edit of ${p.relative}` };
}
