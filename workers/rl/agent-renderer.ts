import type { RunConfig } from '@/core/run-config';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import type { ChatRenderer } from '@/lib/agent/render/chat-renderer';
import { ChatTemplateRenderer } from '@/lib/agent/render/chat-template';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { PermanentJobError } from '@/workers/jobs/job-handler';

const cache = new WeakMap<RlPolicy, Map<string, ChatRenderer>>();

export type AgentRenderOptions = {
  /** how the model is named in errors and the renderer's name */
  model?: string;
} & Pick<RunConfig, 'toolCallFormat' | 'chatTemplateArgs'>;

/**
 * How a run's policy sees an agent conversation (docs/agents.md, "Chat templates and tool
 * calls"): the byte model gets the fixed byte template; a registered Hugging Face model its
 * own chat template (from tokenizer_config.json or chat_template.jinja) with the run's
 * template variables, its end-of-message token the tokenizer's EOS, its tool-call format the
 * run's or the one its template renders. A model without a chat template cannot hold a
 * conversation: refused for good, saying what to add. One renderer per loaded policy and
 * options (the template parses once).
 */
export function agentRenderer(policy: RlPolicy, o: AgentRenderOptions = {}): ChatRenderer {
  const model = o.model ?? 'the registered model';
  const key = JSON.stringify([model, o.toolCallFormat ?? null, o.chatTemplateArgs ?? null]);
  const mine = cache.get(policy) ?? new Map<string, ChatRenderer>();
  cache.set(policy, mine);
  const hit = mine.get(key);
  if (hit) return hit;
  let r: ChatRenderer;
  if (policy instanceof HfRlPolicy) {
    const tok = policy.sampler.tokenizer;
    if (!tok.chatTemplate)
      throw new PermanentJobError(
        `${model} has no chat template (no chat_template in tokenizer_config.json and no chat_template.jinja), so it cannot be rendered as an agent conversation; add one to the model directory, import it again, and launch the run again`,
      );
    r = new ChatTemplateRenderer(tok, {
      chatTemplate: tok.chatTemplate,
      name: `${model}'s chat template`,
      toolCallFormat: o.toolCallFormat,
      extra: o.chatTemplateArgs,
    });
  } else r = new ByteTemplateRenderer();
  mine.set(key, r);
  return r;
}

/** The render options of a run's agent episodes. */
export function runRenderOptions(c: RunConfig): AgentRenderOptions {
  return { ...(c.policy.kind === 'hf' ? { model: `model "${c.policy.model}"` } : {}), toolCallFormat: c.toolCallFormat, chatTemplateArgs: c.chatTemplateArgs };
}
