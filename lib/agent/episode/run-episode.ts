import type { AgentEpisodeEnd, AgentToolName, RepoTask } from '@/core/repo-tasks';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import type { LimitsInput } from '@/lib/sandbox/types';
import type { AgentPolicy } from '../policies/agent-policy';
import type { AgentChatMessage, ChatRenderer } from '../render/chat-renderer';
import { truncateToolContent } from '../render/chat-renderer';
import type { TokenSequence } from '../render/token-sequence';
import { TemplateRenderError } from '@/lib/policy/hf/bounded-template';
import { TemplateNotPrefixStableError } from '../render/chat-template';
import type { ToolCallRecord, ToolLimits } from '../tools/execute-tool';
import { defaultSystemPrompt } from './system-prompt';
import { agentTaskPrompt } from './task-prompt';
import { toolSchemas } from '../tools/tool-definitions';
import { WorkspaceUnreadableError } from './sandbox-workspace';
import { AgentWorkspace } from './agent-workspace';

export type AgentEpisodeOptions<G> = {
  manager: SandboxManager;
  task: RepoTask;
  policy: AgentPolicy;
  renderer: ChatRenderer;
  /** sandbox runtime (default bwrap) and environment (default the task's) */
  runtime?: string;
  env?: string;
  limits?: LimitsInput;
  maxTurns?: number;
  /** the whole sequence (prompt, every message) may not grow past this many tokens */
  tokenBudget?: number;
  /** tokens one assistant message may have */
  maxNewTokens?: number;
  /** wall clock for the agent's turns (setup and grading not included) */
  timeBudgetMs?: number;
  toolLimits?: Partial<ToolLimits>;
  /** the tools the agent gets (default: all): only their schemas are shown, calls to others are error observations */
  tools?: readonly AgentToolName[];
  /** tool messages longer than this are cut in the middle with a marker */
  maxToolMessageChars?: number;
  setupTimeoutMs?: number;
  /** record the workspace diff after every turn (one read-back per turn) */
  diffEachTurn?: boolean;
  systemPrompt?: string;
  /** grades the final patch in a new clean sandbox (e.g. lib/agent/grade's gradeRepoTask) */
  grade?: (task: RepoTask, patch: string) => Promise<G>;
  /**
   * The grade of an episode whose workspace the agent left unreadable (WorkspaceUnreadableError:
   * files it made unreadable, over the caps): a 0 with the reason (unreadableWorkspaceGrade).
   * Without it such an episode is not graded.
   */
  unreadable?: (task: RepoTask, reason: string, env: { runtime: string; envHash: string }) => G;
  /** Told of each tool call as it finishes (turn numbered from 0), e.g. to log it; must not throw. */
  onToolCall?: (turn: number, call: ToolCallRecord) => void;
};

export type AgentTurn = {
  assistant: string;
  tokens: number;
  toolCalls: ToolCallRecord[];
  diffSoFar?: string;
};

export type AgentEpisodeResult<G> = {
  end: AgentEpisodeEnd;
  /** for sandbox_error: what failed; when the agent left the workspace unreadable: why (patch null, graded by `unreadable`) */
  error?: string;
  turns: AgentTurn[];
  /** the agent's changes as a unified diff against the pristine workspace ('' for none; null when it could not be read) */
  patch: string | null;
  binarySkipped: string[];
  /** null when not graded (no grader, or the episode ended in a sandbox error: infra failures are never scored) */
  grade: G | null;
  sequence: TokenSequence;
  messages: readonly AgentChatMessage[];
  sandboxId: string | null;
  runtime: string | null;
  durationMs: number;
};

export { defaultSystemPrompt } from './system-prompt';

class InfraError extends Error {}

/**
 * The policy itself failed (an ONNX error, out of memory at a long context, a sampler bug): not
 * the sandbox's fault, so it is thrown to the caller rather than ended as sandbox_error, which
 * the RL loop would retry and mask as an infrastructure failure.
 */
export class AgentPolicyError extends Error {
  constructor(cause: unknown) {
    super(`the agent's policy failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * One agent episode: one sandbox for all its turns (the workspace persists), the policy's
 * messages parsed for tool calls and executed, tool messages appended, until `submit`, max
 * turns, the token budget or the time budget. Then the workspace is read back and diffed
 * against the pristine one, the sandbox released (always), and the patch graded by `grade`
 * in a sandbox of its own. A sandbox failure ends the episode as `sandbox_error`, ungraded.
 */
export async function runAgentEpisode<G = unknown>(o: AgentEpisodeOptions<G>): Promise<AgentEpisodeResult<G>> {
  const t0 = Date.now();
  const maxTurns = o.maxTurns ?? 30;
  const tokenBudget = o.tokenBudget ?? 32_768;
  const maxNewTokens = o.maxNewTokens ?? 4096;
  const deadline = t0 + (o.timeBudgetMs ?? 600_000);
  const format = o.renderer.toolCallFormat;
  const conversation = o.renderer.begin({ system: o.systemPrompt ?? defaultSystemPrompt(format), user: agentTaskPrompt(o.task), tools: toolSchemas(o.tools) });
  const turns: AgentTurn[] = [];
  const result = (end: AgentEpisodeEnd, extra: Partial<AgentEpisodeResult<G>> = {}): AgentEpisodeResult<G> => ({
    end,
    turns,
    patch: null,
    binarySkipped: [],
    grade: null,
    sequence: conversation.sequence,
    messages: conversation.messages,
    sandboxId: null,
    runtime: null,
    durationMs: Date.now() - t0,
    ...extra,
  });

  let workspace: AgentWorkspace;
  try {
    workspace = await AgentWorkspace.acquire(o);
  } catch (e) {
    return result('sandbox_error', { error: `cannot start the episode's sandbox: ${(e as Error).message}` });
  }
  const sb: Sandbox = workspace.sandbox;
  let end: AgentEpisodeEnd;
  let error: string | undefined;
  let patch: string | null = null;
  let binarySkipped: string[] = [];
  let unreadable: string | undefined;
  try {
    await workspace.prepare(o.setupTimeoutMs);
    end = await loop();
    try {
      const diff = await workspace.diff();
      patch = diff.patch;
      binarySkipped = diff.binarySkipped;
    } catch (e) {
      if (!(e instanceof WorkspaceUnreadableError)) throw e;
      unreadable = e.message;
    }
  } catch (e) {
    // a renderer that cannot render this episode (a template that fails or exceeds its limits), or a failing policy, is a bug to see, not an infra failure
    if (e instanceof TemplateNotPrefixStableError || e instanceof TemplateRenderError || e instanceof AgentPolicyError) throw e;
    end = 'sandbox_error';
    error = (e as Error).message;
  } finally {
    await workspace.release();
  }
  const where = { sandboxId: sb.id, runtime: sb.runtimeName };
  if (end !== 'sandbox_error' && unreadable !== undefined) {
    // the agent's doing: scored 0 with the reason, never masked
    const grade = o.grade && o.unreadable ? o.unreadable(o.task, unreadable, { runtime: sb.runtimeName, envHash: sb.envHash }) : null;
    return result(end, { error: `the workspace could not be read back: ${unreadable}`, grade, ...where, durationMs: Date.now() - t0 });
  }
  if (end === 'sandbox_error' || patch === null) return result('sandbox_error', { error, ...where });
  const grade = o.grade ? await o.grade(o.task, patch) : null;
  return result(end, { patch, binarySkipped, grade, sandboxId: sb.id, runtime: sb.runtimeName, durationMs: Date.now() - t0 });

  async function loop(): Promise<AgentEpisodeEnd> {
    for (let turn = 0; turn < maxTurns; turn++) {
      if (Date.now() >= deadline) return 'time_budget';
      const left = tokenBudget - conversation.sequence.ids.length;
      if (left <= 0) return 'token_budget';
      const sample = await o.policy.next(conversation, { maxNewTokens: Math.min(maxNewTokens, left) }).catch((e: unknown) => {
        throw new AgentPolicyError(e);
      });
      conversation.appendAssistant(sample.tokens, sample.logprobs);
      const text = o.renderer.assistantText(sample.tokens);
      const parsed = format.parse(text);
      const records: ToolCallRecord[] = [];
      let submitted = false;
      for (const call of parsed.calls) {
        const rec = await workspace.call(call, deadline);
        records.push(rec);
        o.onToolCall?.(turn, rec);
        if (rec.infraError) {
          turns.push({ assistant: text, tokens: sample.tokens.length, toolCalls: records });
          throw new InfraError(rec.infraError);
        }
        if (rec.submitted) {
          submitted = true;
          break; // calls after submit are not run
        }
      }
      const record: AgentTurn = { assistant: text, tokens: sample.tokens.length, toolCalls: records };
      turns.push(record);
      if (o.diffEachTurn)
        record.diffSoFar = await workspace.diff().then(
          (d) => d.patch,
          (e: unknown) => {
            if (e instanceof WorkspaceUnreadableError) return `[the workspace cannot be read back: ${e.message}]`;
            throw e;
          },
        );
      if (submitted) return 'submitted';
      const messages = records.length
        ? records.map((r, i) => {
            const call = parsed.calls[i];
            return {
              name: r.name || 'error',
              content: truncateToolContent(r.output, o.maxToolMessageChars ?? 32_768),
              ...(call?.ok && call.id ? { id: call.id } : {}),
            };
          })
        : [{ name: 'error', content: `error: no tool call found. To call a tool, ${format.instructions}; or submit.` }];
      // the episode ends at a budget; the tool messages of the last turn are still recorded above
      if (tokenBudget - conversation.sequence.ids.length <= 0) return 'token_budget';
      conversation.appendTools(messages);
      if (Date.now() >= deadline) return 'time_budget';
    }
    return 'max_turns';
  }
}
