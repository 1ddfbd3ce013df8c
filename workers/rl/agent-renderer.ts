import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import type { ChatRenderer } from '@/lib/agent/render/chat-renderer';
import { ChatTemplateRenderer } from '@/lib/agent/render/chat-template';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { PermanentJobError } from '@/workers/jobs/job-handler';

const cache = new WeakMap<RlPolicy, ChatRenderer>();

/**
 * How a run's policy sees an agent conversation (docs/agents.md, "Rendering"): the byte model
 * gets the fixed byte template; a registered Hugging Face model its own chat template (from
 * tokenizer_config.json or chat_template.jinja), applied incrementally, its end-of-message
 * token the tokenizer's EOS. A model without a chat template cannot hold a conversation:
 * refused for good, saying what to add. One renderer per loaded policy (the template parses once).
 */
export function agentRenderer(policy: RlPolicy, model = 'the registered model'): ChatRenderer {
  const hit = cache.get(policy);
  if (hit) return hit;
  let r: ChatRenderer;
  if (policy instanceof HfRlPolicy) {
    const tok = policy.sampler.tokenizer;
    if (!tok.chatTemplate)
      throw new PermanentJobError(
        `${model} has no chat template (no chat_template in tokenizer_config.json and no chat_template.jinja), so it cannot be rendered as an agent conversation; add one to the model directory, import it again, and launch the run again`,
      );
    r = new ChatTemplateRenderer(tok, { chatTemplate: tok.chatTemplate, name: `${model}'s chat template` });
  } else r = new ByteTemplateRenderer();
  cache.set(policy, r);
  return r;
}
