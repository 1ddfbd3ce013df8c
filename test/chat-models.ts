import fs from 'node:fs/promises';
import path from 'node:path';
import type { ToolCallFormatName } from '@/core/tool-call-formats';
import { prng } from '@/core/random';

/**
 * Tiny models of real chat families for agent tests: each family's own chat template
 * (test/chat-templates, vendored unchanged), a byte-level BPE tokenizer carrying that family's
 * special and added tokens (marked special or not as in the real tokenizer.json), and random
 * weights of the family's architecture (Qwen2's q/k/v biases, Qwen3's q/k norms). They say
 * nothing, but they render, tokenize and sample exactly as the real models' files would.
 */
export type ChatFamily = {
  name: string;
  template: string;
  architecture: 'LlamaForCausalLM' | 'Qwen2ForCausalLM' | 'Qwen3ForCausalLM' | 'MistralForCausalLM';
  /** added tokens, in id order after the 256 bytes: [text, special] */
  added: [string, boolean][];
  bos?: string;
  eos: string;
  /** the tool-call format the template implies */
  format: ToolCallFormatName;
  /** template variables (Qwen3's enable_thinking) */
  extra?: Record<string, unknown>;
};

const QWEN_ADDED: [string, boolean][] = [
  ['<|endoftext|>', true],
  ['<|im_start|>', true],
  ['<|im_end|>', true],
  ['<tool_call>', false],
  ['</tool_call>', false],
];
const LLAMA3_ADDED: [string, boolean][] = [
  ['<|begin_of_text|>', true],
  ['<|end_of_text|>', true],
  ['<|start_header_id|>', true],
  ['<|end_header_id|>', true],
  ['<|eom_id|>', true],
  ['<|eot_id|>', true],
  ['<|python_tag|>', true],
];

export const CHAT_FAMILIES: ChatFamily[] = [
  { name: 'qwen2.5', template: 'qwen2.5.jinja', architecture: 'Qwen2ForCausalLM', added: QWEN_ADDED, eos: '<|im_end|>', format: 'hermes' },
  {
    name: 'qwen3-thinking',
    template: 'qwen3.jinja',
    architecture: 'Qwen3ForCausalLM',
    added: [...QWEN_ADDED, ['<tool_response>', false], ['</tool_response>', false], ['<think>', false], ['</think>', false]],
    eos: '<|im_end|>',
    format: 'hermes',
  },
  {
    name: 'qwen3-non-thinking',
    template: 'qwen3.jinja',
    architecture: 'Qwen3ForCausalLM',
    added: [...QWEN_ADDED, ['<tool_response>', false], ['</tool_response>', false], ['<think>', false], ['</think>', false]],
    eos: '<|im_end|>',
    format: 'hermes',
    extra: { enable_thinking: false },
  },
  {
    name: 'llama-3.2',
    template: 'llama-3.2.jinja',
    architecture: 'LlamaForCausalLM',
    added: LLAMA3_ADDED,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    format: 'llama-json',
  },
  {
    name: 'mistral-nemo',
    template: 'mistral-nemo.jinja',
    architecture: 'MistralForCausalLM',
    added: ['<unk>', '<s>', '</s>', '[INST]', '[/INST]', '[AVAILABLE_TOOLS]', '[/AVAILABLE_TOOLS]', '[TOOL_RESULTS]', '[/TOOL_RESULTS]', '[TOOL_CALLS]'].map(
      (t) => [t, true],
    ),
    bos: '<s>',
    eos: '</s>',
    format: 'mistral',
  },
  {
    name: 'hermes-3',
    template: 'hermes-3.jinja',
    architecture: 'LlamaForCausalLM',
    added: [
      ...LLAMA3_ADDED,
      ['<|im_start|>', true],
      ['<|im_end|>', true],
      ['<tool_call>', false],
      ['</tool_call>', false],
      ['<tool_response>', false],
      ['</tool_response>', false],
    ],
    bos: '<|begin_of_text|>',
    eos: '<|im_end|>',
    format: 'hermes',
  },
];

export const CHAT_TEMPLATES_DIR = path.resolve(import.meta.dirname, 'chat-templates');

/** GPT-2's byte-to-character table, which byte-level BPE vocabularies are written in. */
function byteChars(): string[] {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const chars: string[] = new Array<string>(256);
  bs.forEach((b) => (chars[b] = String.fromCodePoint(b)));
  let n = 0;
  for (let b = 0; b < 256; b++) if (chars[b] === undefined) chars[b] = String.fromCodePoint(256 + n++);
  return chars;
}

/** tokenizer.json of a byte-level BPE (ids 0–255 the bytes, no merges) with the family's added tokens after them. */
export function familyTokenizerJson(f: ChatFamily): Record<string, unknown> {
  const vocab = Object.fromEntries(byteChars().map((c, i) => [c, i]));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: f.added.map(([content, special], i) => ({
      id: 256 + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: null,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
}

/**
 * A model directory of `f`'s family: config.json (2 layers, hidden 32), tokenizer.json,
 * tokenizer_config.json with the family's chat template, and random weights (seeded).
 */
export async function familyModelDir(out: string, f: ChatFamily, o: { maxPositionEmbeddings?: number; seed?: number } = {}): Promise<string> {
  const { hfParamSpecs } = await import('@/lib/policy/hf/weights');
  const { parseHfConfig } = await import('@/lib/policy/hf/config');
  const { writeSafetensorsFile } = await import('@/lib/policy/hf/safetensors-writer');
  await fs.mkdir(out, { recursive: true });
  const vocabSize = 256 + f.added.length;
  const id = (t: string | undefined) => (t === undefined ? undefined : 256 + f.added.findIndex(([c]) => c === t));
  const config = {
    architectures: [f.architecture],
    vocab_size: vocabSize,
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 8,
    max_position_embeddings: o.maxPositionEmbeddings ?? 4096,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    tie_word_embeddings: f.architecture !== 'LlamaForCausalLM',
    bos_token_id: id(f.bos) ?? null,
    eos_token_id: id(f.eos),
  };
  const random = prng(o.seed ?? 1);
  const tensors = hfParamSpecs(parseHfConfig(config)).map((s) => {
    const n = s.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const norm = s.name.endsWith('norm.weight');
    for (let i = 0; i < n; i++) data[i] = norm ? 1 : (random() - 0.5) * 0.2;
    return { name: s.name, shape: s.shape, dtype: 'F32' as const, data };
  });
  await writeSafetensorsFile(path.join(out, 'model.safetensors'), tensors);
  const chatTemplate = await fs.readFile(path.join(CHAT_TEMPLATES_DIR, f.template), 'utf8');
  await fs.writeFile(path.join(out, 'config.json'), JSON.stringify(config, null, 2));
  await fs.writeFile(path.join(out, 'tokenizer.json'), JSON.stringify(familyTokenizerJson(f)));
  await fs.writeFile(
    path.join(out, 'tokenizer_config.json'),
    JSON.stringify(
      { bos_token: f.bos ?? null, eos_token: f.eos, pad_token: f.eos, chat_template: chatTemplate, model_max_length: config.max_position_embeddings },
      null,
      2,
    ),
  );
  return out;
}
