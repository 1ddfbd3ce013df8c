import type { RenderedConversation } from '../render/chat-renderer';

/** One assistant message as the policy produced it: the sampled tokens are the truth, `text` their decoding. */
export type AgentTurnSample = { text: string; tokens: number[]; logprobs: number[] };

/**
 * Produces the next assistant message of an agent episode from the conversation so far
 * (`conversation.sequence.ids` is the exact prompt; it ends with the generation prompt).
 * `maxNewTokens` is what is left of the episode's token budget for this message.
 */
export interface AgentPolicy {
  readonly name: string;
  next(conversation: RenderedConversation, o: { maxNewTokens: number }): Promise<AgentTurnSample>;
}
