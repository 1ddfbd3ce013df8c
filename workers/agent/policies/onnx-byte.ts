import type { Policy } from '@/workers/policy/policy';
import type { RenderedConversation } from '../render/chat-renderer';
import type { AgentPolicy, AgentTurnSample } from './agent-policy';

/**
 * The built-in ONNX byte model as an agent policy: samples the next assistant message from
 * the episode's exact token sequence (rendered with ByteTemplateRenderer), stopping at EOS.
 * Each turn draws with its own seed (seed + turn), so an episode replays token for token.
 */
export class OnnxBytePolicy implements AgentPolicy {
  readonly name = 'onnx-byte';
  private turn = 0;

  constructor(
    private readonly policy: Policy,
    private readonly o: { temperature?: number; topP?: number; seed?: number } = {},
  ) {}

  async next(conversation: RenderedConversation, o: { maxNewTokens: number }): Promise<AgentTurnSample> {
    const prompt = conversation.sequence.ids;
    const room = this.policy.model.maxSeqLen - prompt.length;
    if (room < 1)
      throw new Error(
        `the conversation (${prompt.length} tokens) fills the model's context (maxSeqLen ${this.policy.model.maxSeqLen}); set the episode's tokenBudget below it`,
      );
    const [c] = await this.policy.sample([prompt], {
      maxNewTokens: Math.min(o.maxNewTokens, room),
      temperature: this.o.temperature ?? 1,
      topP: this.o.topP ?? 1,
      seed: (this.o.seed ?? 0) + this.turn++,
      eos: conversation.renderer.stopTokens[0],
    });
    return { text: conversation.renderer.assistantText(c!.tokens), tokens: c!.tokens, logprobs: c!.logprobs };
  }
}
