import { ENV_SESSION_LIMITS, type EnvObservation, type EnvStepResult, type EnvToolCall } from '@/core/env-sessions';
import type { RepoGrade, RepoTask } from '@/core/repo-tasks';
import type { ParsedToolCall, ToolCallFormat } from '../tools/call-formats/call-format';
import { isObject } from '../tools/call-formats/call-format';
import type { AgentWorkspace } from './agent-workspace';
import { WorkspaceUnreadableError } from './sandbox-workspace';
import { unreadableWorkspaceGrade } from './unreadable-grade';

/**
 * A step-API call as the tools take it: OpenAI's structured `tool_calls` carry `arguments` as a
 * JSON string, so a string is decoded here; one that is not a JSON object is a call with an
 * error the agent sees, like a malformed call in text.
 */
export function structuredCall(c: EnvToolCall): ParsedToolCall {
  let args: unknown = c.arguments;
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch (e) {
      return { ok: false, name: c.name, raw: c.arguments as string, error: `the arguments of ${c.name} are not valid JSON (${(e as Error).message})` };
    }
  }
  if (!isObject(args)) return { ok: false, name: c.name, raw: JSON.stringify(args), error: `the arguments of ${c.name} must be a JSON object` };
  return { ok: true, name: c.name, arguments: args, ...(c.id ? { id: c.id } : {}) };
}

/** The sandbox itself failed during a step: the session cannot go on (never the agent's doing). */
export class SessionSandboxError extends Error {}

/**
 * One step: the calls (structured, or parsed from the model's text in `format`) run in order
 * against the workspace; calls after `submit` are not run. A message with no call gets one
 * observation saying how to call a tool, as Crucible's own episodes do.
 */
export async function runSessionStep(workspace: AgentWorkspace, format: ToolCallFormat, req: { calls?: EnvToolCall[]; text?: string }): Promise<EnvStepResult> {
  const parsed = req.calls ? req.calls.map(structuredCall) : format.parse(req.text ?? '').calls;
  // a message may hold any number of calls: as many run as a structured step may send, the rest are refused
  const calls = parsed.slice(0, ENV_SESSION_LIMITS.maxCallsPerStep);
  if (!calls.length)
    return {
      observations: [{ name: 'error', content: `error: no tool call found. To call a tool, ${format.instructions}; or submit.`, error: 'no tool call found' }],
      done: false,
    };
  const observations: EnvObservation[] = [];
  let done = false;
  for (const call of calls) {
    const rec = await workspace.call(call);
    if (rec.infraError) throw new SessionSandboxError(`the session's sandbox failed: ${rec.infraError}`);
    const id = call.ok ? call.id : undefined;
    observations.push({
      name: rec.name || 'error',
      content: rec.output, // already within the session's output cap (its tool limits)
      ...(id ? { id } : {}),
      ...(rec.error ? { error: rec.error } : {}),
      ...(rec.submitted ? { submitted: true } : {}),
    });
    if (rec.submitted) {
      done = true;
      break;
    }
  }
  if (!done && parsed.length > calls.length)
    observations.push({
      name: 'error',
      content: `error: ${parsed.length - calls.length} more tool calls were not run: one step runs at most ${ENV_SESSION_LIMITS.maxCallsPerStep}`,
      error: 'too many tool calls in one step',
    });
  return { observations, done };
}

/**
 * The session's grade: the workspace read back and diffed, and the patch graded by `grade` in
 * a clean sandbox (the agent's sandbox is never where its tests run). A workspace the agent
 * left unreadable is a 0 with the reason, as in Crucible's own episodes.
 */
export async function gradeSession(
  workspace: AgentWorkspace,
  task: RepoTask,
  grade: (patch: string) => Promise<RepoGrade>,
): Promise<RepoGrade & { patch: string | null; binarySkipped: string[] }> {
  try {
    const { patch, binarySkipped } = await workspace.diff();
    return { ...(await grade(patch)), patch, binarySkipped };
  } catch (e) {
    if (!(e instanceof WorkspaceUnreadableError)) throw e;
    const sb = workspace.sandbox;
    return { ...unreadableWorkspaceGrade(task, e.message, { runtime: sb.runtimeName, envHash: sb.envHash }), patch: null, binarySkipped: [] };
  }
}
