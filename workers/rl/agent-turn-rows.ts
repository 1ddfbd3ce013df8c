import type { StoredToolCall } from '@/core/repo-tasks';
import type { AgentChatMessage } from '@/lib/agent/render/chat-renderer';
import type { TokenSequence } from '@/lib/agent/render/token-sequence';
import type { AgentTurn } from '@/lib/agent/episode/run-episode';

/** What one agent turn's row (turns table) holds; see `agentTurnRows`. */
export type AgentTurnRow = {
  index: number;
  /** the assistant message as sampled (decoded) */
  action: string;
  tokenIds: number[];
  lossMask: number[];
  /** the sampler's logprob on the policy's tokens, 0 elsewhere (as input/output turns store them) */
  logprobs: number[];
  /** the tool messages the agent received after this message, capped */
  observation: string;
  toolCalls: StoredToolCall[];
  workspaceDiff: string | null;
  policyMs: number;
  sandboxMs: number;
};

/** The most of one turn's tool messages stored as its observation (each call's output is in toolCalls too). */
export const OBSERVATION_CHARS = 16_384;

/** Postgres text and jsonb cannot hold NUL; byte-level policies do emit it. Token ids keep the exact bytes. */
export const withoutNul = (x: string) => x.replace(/\u0000/g, '\uFFFD');

function cleanJson(v: unknown): unknown {
  if (typeof v === 'string') return withoutNul(v);
  if (Array.isArray(v)) return v.map(cleanJson);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [withoutNul(k), cleanJson(x)]));
  return v;
}

const capped = (s: string) =>
  s.length <= OBSERVATION_CHARS ? s : `${s.slice(0, OBSERVATION_CHARS)}\n[observation cut: ${s.length - OBSERVATION_CHARS} more characters]`;

/**
 * An agent episode's one token sequence cut into one row per turn, so that concatenating the
 * rows' tokenIds / lossMask / logprobs in index order gives the sequence exactly (the learner
 * trains on that concatenation): turn k's row runs from its assistant message (turn 0: from the
 * start, the system + user prompt with mask 0) up to the next assistant message, i.e. its own
 * sampled tokens (mask 1) followed by the tool messages they produced and the next generation
 * prompt (mask 0). The last row also carries whatever ends the sequence.
 */
export function agentTurnRows(
  r: { sequence: TokenSequence; turns: AgentTurn[]; messages: readonly AgentChatMessage[] },
  policyMs: number[] = [],
): AgentTurnRow[] {
  const seq = r.sequence;
  const starts = seq.spans.filter((s) => s.kind === 'assistant').map((s) => s.start);
  if (starts.length !== r.turns.length)
    throw new Error(`the episode has ${r.turns.length} turns but ${starts.length} assistant messages in its token sequence; they must match one to one`);
  // each assistant message's tool messages, in conversation order
  const toolMessages: string[][] = [];
  for (const m of r.messages) {
    if (m.role === 'assistant') toolMessages.push([]);
    else if (m.role === 'tool' && toolMessages.length) toolMessages.at(-1)!.push(`[${m.name}]\n${m.content}`);
  }
  return r.turns.map((t, k) => {
    const from = k === 0 ? 0 : starts[k]!;
    const to = k + 1 < starts.length ? starts[k + 1]! : seq.ids.length;
    const shown = toolMessages[k]?.length ? toolMessages[k]! : t.toolCalls.map((c) => `[${c.name || 'error'}]\n${c.output}`);
    return {
      index: k,
      action: withoutNul(t.assistant),
      tokenIds: seq.ids.slice(from, to),
      lossMask: seq.lossMask.slice(from, to),
      logprobs: seq.logprobs.slice(from, to).map((l) => l ?? 0),
      observation: withoutNul(capped(shown.join('\n'))),
      toolCalls: t.toolCalls.map((c) => ({
        name: withoutNul(c.name),
        arguments: cleanJson(c.arguments) as Record<string, unknown>,
        output: withoutNul(c.output),
        ...(c.error !== undefined ? { error: withoutNul(c.error) } : {}),
        durationMs: Math.round(c.durationMs),
        ...(c.submitted ? { submitted: true } : {}),
        ...(c.rejected ? { rejected: c.rejected } : {}),
      })),
      workspaceDiff: t.diffSoFar === undefined ? null : withoutNul(t.diffSoFar),
      policyMs: Math.round(policyMs[k] ?? 0),
      sandboxMs: Math.round(t.toolCalls.reduce((a, c) => a + c.durationMs, 0)),
    };
  });
}
