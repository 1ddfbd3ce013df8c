import { z } from 'zod';
import type { RenderedConversation } from '../render/chat-renderer';
import type { AgentPolicy, AgentTurnSample } from './agent-policy';

/**
 * One scripted step: a tool call (`{"name", "arguments"}`), or `{"text"}` for a raw assistant
 * message (to play malformed or multi-call messages verbatim).
 */
export const scriptStep = z.union([
  z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }).strict(),
  z.object({ text: z.string() }).strict(),
]);
export type ScriptStep = z.output<typeof scriptStep>;

/**
 * A policy that plays a given list of tool calls, one per turn, written in the renderer's
 * tool-call format (lib/agent/tools/call-formats) and tokenized by the episode's renderer (so the token sequence is what
 * a model saying the same would have produced; logprobs are 0). For tests and for operators
 * debugging an environment. When the script runs out it says so without a tool call.
 */
export class ScriptedPolicy implements AgentPolicy {
  readonly name = 'scripted';
  private at = 0;

  constructor(private readonly steps: ScriptStep[]) {}

  async next(conversation: RenderedConversation, o: { maxNewTokens: number }): Promise<AgentTurnSample> {
    const step = this.steps[this.at++];
    const text = step === undefined ? 'the script has no more steps' : 'text' in step ? step.text : conversation.renderer.toolCallFormat.format([step]);
    let tokens = conversation.renderer.assistantTokens(text);
    // a real sampler stops at the budget too: cut, without the end token
    if (tokens.length > o.maxNewTokens) tokens = tokens.slice(0, Math.max(0, o.maxNewTokens));
    return { text: conversation.renderer.assistantText(tokens), tokens, logprobs: tokens.map(() => 0) };
  }
}

/** A script file: one step a line (JSONL); blank lines skipped; every bad line reported by number. */
export function parseScript(text: string): { steps: ScriptStep[]; errors: { line: number; message: string }[] } {
  const steps: ScriptStep[] = [];
  const errors: { line: number; message: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ line: i + 1, message: `not valid JSON (${(e as Error).message})` });
      return;
    }
    const r = scriptStep.safeParse(value);
    if (r.success) steps.push(r.data);
    else errors.push({ line: i + 1, message: 'expected {"name": TOOL, "arguments": {...}} or {"text": MESSAGE}' });
  });
  return { steps, errors };
}
