import path from 'node:path';

/**
 * A real pretrained model for tests: Karpathy's llama2.c stories260K (MIT) in Hugging Face
 * Llama format, about 1 MB, vendored under test/models so CI needs nothing outside the clone
 * (provenance and shape: test/models/stories260K-hf/README.md).
 */
export const STORIES260K_DIR = path.resolve(import.meta.dirname, 'models/stories260K-hf');

/**
 * A Hermes/Qwen-style chat template with tools (the `<tool_call>` convention): the system
 * message carries the tool schemas in `<tools>`, tool results come back in `<tool_response>`,
 * and every message ends with the tokenizer's EOS, so EOS ends an assistant message.
 */
export const HERMES_TOOL_TEMPLATE = `{%- for message in messages -%}
{{- '<|im_start|>' + message.role + '\\n' -}}
{%- if message.role == 'system' and tools is defined -%}
{{- message.content + '\\n# Tools\\n<tools>' -}}{%- for t in tools -%}{{- '\\n' + (t | tojson) -}}{%- endfor -%}{{- '\\n</tools>' -}}
{%- elif message.role == 'tool' -%}
{{- '<tool_response>\\n' + message.content + '\\n</tool_response>' -}}
{%- else -%}
{{- message.content -}}
{%- endif -%}
{{- eos_token + '\\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}`;

/**
 * stories260K made into a chat model for agent-episode mechanics: a copy with
 * HERMES_TOOL_TEMPLATE as chat_template.jinja and a longer context (its own is 512 tokens,
 * less than an agent prompt with tool schemas; RoPE takes any position, so only the config's
 * limit changes). It still writes children's stories: tests with it check plumbing, not skill.
 */
export async function storiesChatModel(out: string, o: { maxPositionEmbeddings: number }): Promise<string> {
  const fs = await import('node:fs/promises');
  await fs.cp(STORIES260K_DIR, out, { recursive: true });
  await fs.writeFile(path.join(out, 'chat_template.jinja'), HERMES_TOOL_TEMPLATE);
  const config = JSON.parse(await fs.readFile(path.join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
  await fs.writeFile(path.join(out, 'config.json'), JSON.stringify({ ...config, max_position_embeddings: o.maxPositionEmbeddings }, null, 2));
  return out;
}
