import type { Logger } from '@/server/logs/logger';
import type { ToolCallRecord } from '@/lib/agent/tools/execute-tool';

// The RL episode path's log lines (docs/monitoring.md, "Logs"): one per sampled message, per
// tool call, per sandbox run and per grade, each with a `stage` the episode timeline shows, on
// a logger bound to the run and the episode. Modest on purpose: never one per token.

const ms = (v: number) => Math.round(v);

/** The policy produced one message (a turn's action). */
export function logSampled(log: Logger | undefined, o: { turn: number; tokens: number; durationMs: number; truncated?: boolean }) {
  log?.info(
    { stage: 'sample', turn: o.turn, tokens: o.tokens, durationMs: ms(o.durationMs), ...(o.truncated ? { truncated: true } : {}) },
    `turn ${o.turn}: sampled ${o.tokens} tokens in ${ms(o.durationMs)} ms${o.truncated ? ' (cut at the token cap)' : ''}`,
  );
}

/** The exit code a bash tool call reported (the tool's output ends with `[exit code N]`). */
export function toolExitCode(rec: Pick<ToolCallRecord, 'name' | 'output'>): number | null {
  if (rec.name !== 'bash') return null;
  const m = /\[exit code (-?\d+)\]$/.exec(rec.output);
  return m ? Number(m[1]) : null;
}

/** One tool call of an agent episode: its name, duration, exit code (bash) and error. */
export function logToolCall(log: Logger | undefined, turn: number, rec: ToolCallRecord) {
  if (!log) return;
  const exitCode = toolExitCode(rec);
  const fields = {
    stage: 'tool',
    turn,
    tool: rec.name || '(unparsed)',
    durationMs: ms(rec.durationMs),
    ...(exitCode !== null ? { exitCode } : {}),
    ...(rec.error ? { error: rec.error.slice(0, 300) } : {}),
    ...(rec.submitted ? { submitted: true } : {}),
  };
  const what = `turn ${turn}: tool ${fields.tool} in ${fields.durationMs} ms${exitCode !== null ? `, exit code ${exitCode}` : ''}${rec.error ? `: ${fields.error}` : ''}`;
  if (rec.infraError) log.warn({ ...fields, infraError: rec.infraError.slice(0, 300) }, `${what} (the sandbox failed)`);
  else log.info(fields, what);
}

/** One run of the candidate in a sandbox (an I/O or text turn's scoring). */
export function logSandboxExec(
  log: Logger | undefined,
  o: { turn: number; status: string; execStatus: string; exitCode: number | null; durationMs: number; passed?: number; total?: number; reward?: number | null },
) {
  const checks = o.total !== undefined ? `, ${o.passed}/${o.total} checks passed` : '';
  const fields = {
    stage: 'sandbox',
    turn: o.turn,
    status: o.status,
    execStatus: o.execStatus,
    exitCode: o.exitCode,
    durationMs: ms(o.durationMs),
    ...(o.total !== undefined ? { passed: o.passed, total: o.total } : {}),
    ...(o.reward !== undefined ? { reward: o.reward } : {}),
  };
  const line = `turn ${o.turn}: sandbox run ${o.execStatus} (exit code ${o.exitCode ?? '?'}) in ${ms(o.durationMs)} ms${checks}`;
  if (o.status === 'scored') log?.info(fields, line);
  else log?.warn(fields, `${line}: ${o.status}`);
}

/** The episode's grade (a repository patch graded in a clean sandbox, or the last turn's score). */
export function logGrade(log: Logger | undefined, o: { status: string; reward: number | null; durationMs?: number; detail?: string; [k: string]: unknown }) {
  const { status, reward, durationMs, detail, ...rest } = o;
  const fields = { stage: 'grade', status, reward, ...(durationMs !== undefined ? { durationMs: ms(durationMs) } : {}), ...rest };
  const line = `graded: ${status}${reward !== null ? `, reward ${reward.toFixed(3)}` : ''}${durationMs !== undefined ? ` in ${ms(durationMs)} ms` : ''}${detail ? `: ${detail}` : ''}`;
  if (status === 'graded' || status === 'scored') log?.info(fields, line);
  else log?.warn(fields, line);
}
