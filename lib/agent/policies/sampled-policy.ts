import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { RenderedConversation } from '../render/chat-renderer';
import type { AgentPolicy, AgentTurnSample } from './agent-policy';

/**
 * A trained model as an agent policy, whichever it is (the built-in byte model rendered with
 * ByteTemplateRenderer, or a registered Hugging Face model with its own chat template):
 * samples the next assistant message from the episode's exact token sequence, stopping at
 * the renderer's end-of-message tokens. Each turn draws with its own seed (seed + turn), so
 * an episode replays token for token.
 */
export class SampledAgentPolicy implements AgentPolicy {
  readonly name: string;
  private turn = 0;

  constructor(
    private readonly policy: Pick<RlPolicy, 'kind' | 'maxSeqLen' | 'sample'>,
    private readonly o: { temperature?: number; topP?: number; seed?: number } = {},
  ) {
    this.name = policy.kind === 'byte' ? 'onnx-byte' : 'hf';
  }

  async next(conversation: RenderedConversation, o: { maxNewTokens: number }): Promise<AgentTurnSample> {
    const prompt = conversation.sequence.ids;
    const room = this.policy.maxSeqLen - prompt.length;
    if (room < 1)
      throw new Error(
        `the conversation (${prompt.length} tokens) fills the model's context (maxSeqLen ${this.policy.maxSeqLen}); set the episode's tokenBudget below it`,
      );
    const [c] = await this.policy.sample([prompt], {
      maxNewTokens: Math.min(o.maxNewTokens, room),
      temperature: this.o.temperature ?? 1,
      topP: this.o.topP ?? 1,
      seed: (this.o.seed ?? 0) + this.turn++,
      stop: conversation.renderer.stopTokens.map((t) => [t]),
    });
    return { text: conversation.renderer.assistantText(c!.tokens), tokens: c!.tokens, logprobs: c!.logprobs };
  }
}
