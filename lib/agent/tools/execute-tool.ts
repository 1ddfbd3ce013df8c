import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { capText } from './output-caps';
import { readSandboxFile, SandboxFileError, writeSandboxFile } from './sandbox-files';
import { isToolName, toolArgs, type ToolArgs } from './tool-definitions';
import type { ParsedToolCall } from './call-formats/call-format';
import { resolveWorkspacePath } from './workspace-paths';
import { DEFAULT_AGENT_TOOLS, type AgentToolName, type RejectedToolCall } from '@/core/repo-tasks';
import { currentText, insert, recordEdit, undoEdit, view } from './editor-tools';

export type ToolLimits = {
  /** bytes of a tool's output the agent sees; the rest is cut with a marker */
  outputBytes: number;
  /** default wall-clock limit of a bash command */
  bashTimeoutMs: number;
};
export const defaultToolLimits: ToolLimits = { outputBytes: 16 * 1024, bashTimeoutMs: 30_000 };

export type ToolContext = {
  sandbox: Sandbox;
  /** the workspace inside the sandbox, e.g. /work/repo */
  workspaceDir: string;
  limits: ToolLimits;
  /** epoch ms by which the episode must end: a bash command never runs past it */
  deadline?: number;
  /** the tools this episode offers (default: all); a call to another is an error observation */
  tools?: readonly AgentToolName[];
  /** extra environment for `bash` commands (e.g. NODE_OPTIONS loading the TypeScript hooks) */
  env?: Readonly<Record<string, string>>;
  /** the episode's edit history: each file's earlier contents, newest last (null: it did not exist), for undo_edit */
  edits?: Map<string, (string | null)[]>;
};

/** One executed call, as the episode records it and the agent sees it (`output`). */
export type ToolCallRecord = {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  /** set when the call failed (the agent sees it in `output` too) */
  error?: string;
  durationMs: number;
  /** the call was `submit` */
  submitted?: boolean;
  /** the sandbox itself failed (not the agent's command): the episode ends as sandbox_error */
  infraError?: string;
  /** the call never ran: unreadable, a tool not offered, or arguments its schema refuses (core/repo-tasks.ts) */
  rejected?: RejectedToolCall;
};

const fail = (name: string, args: Record<string, unknown>, t0: number, error: string, rejected?: RejectedToolCall): ToolCallRecord => ({
  name,
  arguments: args,
  output: `error: ${error}`,
  error,
  durationMs: performance.now() - t0,
  ...(rejected ? { rejected } : {}),
});

/** Runs one parsed call. Never throws: every failure is an error observation for the agent. */
export async function executeToolCall(ctx: ToolContext, call: ParsedToolCall): Promise<ToolCallRecord> {
  const t0 = performance.now();
  if (!call.ok) return fail(call.name ?? '', {}, t0, call.error, 'malformed');
  const { name } = call;
  const offered = ctx.tools ?? DEFAULT_AGENT_TOOLS;
  if (!isToolName(name) || !offered.includes(name))
    return fail(name, call.arguments, t0, `unknown tool "${name}"; the tools are ${offered.join(', ')}`, 'unknown_tool');
  const parsed = toolArgs[name].safeParse(name === 'view' ? viewRangeAlias(call.arguments) : call.arguments);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
    return fail(name, call.arguments, t0, `bad arguments for ${name}: ${issues}`, 'bad_arguments');
  }
  try {
    const out = await run(ctx, name, parsed.data as ToolArgs[typeof name]);
    return { name, arguments: call.arguments, durationMs: performance.now() - t0, ...out };
  } catch (e) {
    if (e instanceof SandboxFileError) return fail(name, call.arguments, t0, e.message);
    const msg = (e as Error).message;
    return { ...fail(name, call.arguments, t0, `the sandbox failed: ${msg}`), infraError: msg };
  }
}

/** `view_range: [a, b]` (SWE-agent, OpenHands, Anthropic's editor) read as start_line a, end_line b. */
function viewRangeAlias(args: Record<string, unknown>): Record<string, unknown> {
  const { view_range: range, ...rest } = args;
  if (!Array.isArray(range) || range.length !== 2) return args;
  return { ...rest, start_line: range[0], end_line: range[1] };
}

type RunOut = Omit<ToolCallRecord, 'name' | 'arguments' | 'durationMs'>;

async function run(ctx: ToolContext, name: keyof ToolArgs, args: ToolArgs[keyof ToolArgs]): Promise<RunOut> {
  switch (name) {
    case 'bash':
      return bash(ctx, args as ToolArgs['bash']);
    case 'read_file':
      return readFile(ctx, args as ToolArgs['read_file']);
    case 'write_file':
      return writeFile(ctx, args as ToolArgs['write_file']);
    case 'str_replace':
      return strReplace(ctx, args as ToolArgs['str_replace']);
    case 'view': {
      const a = args as ToolArgs['view'];
      // "." (or the workspace itself) views the workspace's root directory
      const root = a.path === '.' || a.path === './' || a.path.replace(/\/+$/, '') === ctx.workspaceDir;
      return view(ctx, root ? { path: ctx.workspaceDir, relative: '' } : pathOf(ctx, a.path), a, asText);
    }
    case 'insert':
      return insert(ctx, pathOf(ctx, (args as ToolArgs['insert']).path), args as ToolArgs['insert'], asText);
    case 'undo_edit':
      return undoEdit(ctx, pathOf(ctx, (args as ToolArgs['undo_edit']).path));
    case 'think':
      return { output: 'ok: nothing was run and nothing changed' };
    case 'submit':
      return { output: 'submitted', submitted: true };
  }
}

async function bash(ctx: ToolContext, a: ToolArgs['bash']): Promise<RunOut> {
  let timeoutMs = a.timeout_s !== undefined ? a.timeout_s * 1000 : ctx.limits.bashTimeoutMs;
  if (ctx.deadline !== undefined) timeoutMs = Math.max(1, Math.min(timeoutMs, ctx.deadline - Date.now()));
  // no .pyc caches: files change within the same second through write_file/str_replace, and Python's
  // (mtime, size) check would then run the stale bytecode
  const r = await ctx.sandbox.exec(['sh', '-c', a.command], { cwd: ctx.workspaceDir, timeoutMs, env: { PYTHONDONTWRITEBYTECODE: '1', ...ctx.env } });
  if (r.status === 'sandbox_error' || r.status === 'env_mismatch') {
    const msg = `${r.status}: ${r.error ?? 'no detail'}`;
    return { output: `error: the sandbox failed (${msg})`, error: msg, infraError: msg };
  }
  // stdout then stderr, each labelled only when both have something
  const parts = r.stdout && r.stderr ? [r.stdout, `[stderr]\n${r.stderr}`] : [r.stdout || r.stderr];
  const shown = capText(parts.join(r.stdout.endsWith('\n') ? '' : '\n'), ctx.limits.outputBytes);
  const notes: string[] = [];
  if (r.stdoutTruncated || r.stderrTruncated)
    notes.push(`[output truncated: more than ${shown.omittedBytes} bytes omitted; the sandbox kept only the first part of each stream]`);
  if (r.status === 'timeout') notes.push(`[timed out after ${Math.round(timeoutMs / 100) / 10}s; the command and its processes were killed]`);
  else if (r.status === 'memory_limit') notes.push('[killed: the sandbox memory limit was reached]');
  else if (r.status === 'killed') notes.push(`[killed by ${r.signal ?? 'a signal'}]`);
  else notes.push(`[exit code ${r.exitCode ?? '?'}]`);
  const output = [shown.text.replace(/\n$/, ''), ...notes].filter(Boolean).join('\n');
  const error =
    r.status === 'timeout' ? `timed out after ${Math.round(timeoutMs / 100) / 10}s` : r.status === 'ok' || r.status === 'nonzero_exit' ? undefined : r.status;
  return error ? { output, error } : { output };
}

function pathOf(ctx: ToolContext, p: string): { path: string; relative: string } {
  const r = resolveWorkspacePath(ctx.workspaceDir, p);
  if (!r.ok) throw new SandboxFileError(r.error);
  return r;
}

function asText(data: Buffer, shown: string): string {
  const text = data.toString('utf8');
  if (data.includes(0) || !Buffer.from(text, 'utf8').equals(data))
    throw new SandboxFileError(`${shown} is a binary file (${data.length} bytes); read it with bash instead`);
  return text;
}

async function readFile(ctx: ToolContext, a: ToolArgs['read_file']): Promise<RunOut> {
  const p = pathOf(ctx, a.path);
  const text = asText(await readSandboxFile(ctx.sandbox, ctx.workspaceDir, p.path, p.relative), p.relative);
  let body = text;
  if (a.start_line !== undefined || a.end_line !== undefined) {
    const lines = text.split('\n');
    const from = a.start_line ?? 1;
    const to = Math.min(a.end_line ?? lines.length, lines.length);
    if (from > lines.length) throw new SandboxFileError(`${p.relative} has ${lines.length} lines; start_line ${from} is past the end`);
    if (to < from) throw new SandboxFileError(`end_line ${to} is before start_line ${from}`);
    body = lines.slice(from - 1, to).join('\n');
  }
  return { output: capText(body, ctx.limits.outputBytes).text };
}

async function writeFile(ctx: ToolContext, a: ToolArgs['write_file']): Promise<RunOut> {
  const p = pathOf(ctx, a.path);
  if (p.relative.includes('/')) {
    // missing directories are made by the sandbox's user: putFile (host root) would leave them root-owned
    const dir = p.path.slice(0, p.path.lastIndexOf('/'));
    const r = await ctx.sandbox.exec(['mkdir', '-p', '--', dir], { cwd: ctx.workspaceDir, timeoutMs: 10_000 });
    if (r.status === 'sandbox_error' || r.status === 'env_mismatch') throw new Error(r.error ?? r.status);
    if (r.status !== 'ok') throw new SandboxFileError(`cannot create the directory of ${p.relative}: ${r.stderr.trim() || r.status}`);
  }
  recordEdit(ctx, p, await currentText(ctx, p, asText).catch(() => null));
  writeSandboxFile(ctx.sandbox, p.path, p.relative, a.content);
  return { output: `wrote ${Buffer.byteLength(a.content)} bytes to ${p.relative}` };
}

async function strReplace(ctx: ToolContext, a: ToolArgs['str_replace']): Promise<RunOut> {
  const p = pathOf(ctx, a.path);
  const text = asText(await readSandboxFile(ctx.sandbox, ctx.workspaceDir, p.path, p.relative), p.relative);
  const count = text.split(a.old_str).length - 1;
  if (count !== 1)
    throw new SandboxFileError(
      count === 0
        ? `old_str was not found in ${p.relative} (0 matches); copy it exactly, whitespace included`
        : `old_str occurs ${count} times in ${p.relative}; it must match exactly once, so include more surrounding text`,
    );
  const at = text.indexOf(a.old_str);
  recordEdit(ctx, p, text);
  writeSandboxFile(ctx.sandbox, p.path, p.relative, text.slice(0, at) + a.new_str + text.slice(at + a.old_str.length));
  return { output: `replaced 1 occurrence in ${p.relative}` };
}
