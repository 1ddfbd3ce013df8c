import type { ToolCallFormat } from '../tools/call-formats/call-format';
import type { ToolSchema } from '../tools/tool-definitions';
import type { TokenSequence } from './token-sequence';

/**
 * A message of an agent conversation, as a chat template sees it. An assistant message's
 * content is its sampled text, tool calls included, as the model wrote them; a tool message
 * carries the id of the call it answers (Mistral's templates require one).
 */
export type AgentChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string }
  | { role: 'tool'; name: string; content: string; tool_call_id?: string };

/** A tool's result for the conversation: the tool, its output, and the id of the call it answers. */
export type ToolResultMessage = { name: string; content: string; id?: string };

/**
 * Renders a conversation into one token sequence, incrementally. `begin` renders system +
 * user and the generation prompt; then the episode alternates `appendAssistant` (the
 * tokens the policy sampled, kept as they are, mask 1) and `appendTools` (the tool
 * messages and the next generation prompt, mask 0). Nothing already in the sequence changes.
 */
export interface ChatRenderer {
  readonly name: string;
  /** tokens that end an assistant message; a sampler stops on them */
  readonly stopTokens: number[];
  /** how the model writes tool calls */
  readonly toolCallFormat: ToolCallFormat;
  begin(o: { system: string; user: string; tools: ToolSchema[] }): RenderedConversation;
  /** The tokens a policy would sample to say `text` as a whole message (end token included): for scripted policies and tests. */
  assistantTokens(text: string): number[];
  /** The message text of sampled tokens (the end token dropped). */
  assistantText(tokens: number[]): string;
}

export interface RenderedConversation {
  readonly renderer: ChatRenderer;
  readonly sequence: TokenSequence;
  readonly messages: readonly AgentChatMessage[];
  appendAssistant(tokens: number[], logprobs?: number[]): void;
  appendTools(results: ToolResultMessage[]): void;
}

/** Tool output above `maxChars` keeps its head and tail with a marker: the history itself is never cut. */
export function truncateToolContent(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  return `${content.slice(0, head)}\n[tool output truncated: ${content.length - head - tail} characters omitted]\n${content.slice(content.length - tail)}`;
}
