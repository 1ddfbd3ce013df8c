import { z } from 'zod';

// config.json of a Hugging Face causal LM, validated and normalised into what the ONNX
// forward needs. Anything that would change the computation and is not implemented here is
// refused with the field's name, rather than silently computed differently.

export const ARCHITECTURES = ['LlamaForCausalLM', 'Qwen2ForCausalLM', 'Qwen3ForCausalLM', 'MistralForCausalLM'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

export type RopeScaling =
  | { type: 'default' }
  | { type: 'linear'; factor: number }
  | { type: 'llama3'; factor: number; lowFreqFactor: number; highFreqFactor: number; originalMaxPositionEmbeddings: number };

export type HfModelConfig = {
  architecture: Architecture;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: RopeScaling;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  /** Biases on q/k/v projections (always in Qwen2; `attention_bias` elsewhere). */
  qkvBias: boolean;
  /** Bias on o_proj (`attention_bias` in Llama and Qwen3; never in Qwen2). */
  oBias: boolean;
  /** Biases on gate/up/down (Llama's `mlp_bias`). */
  mlpBias: boolean;
  /** Per-head RMSNorm on queries and keys before RoPE (Qwen3). */
  qkNorm: boolean;
  bosTokenId?: number;
  eosTokenIds: number[];
};

const pos = z.number().int().positive();
const tokenIds = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())]).nullish();

const Raw = z.object({
  architectures: z.array(z.string()).min(1),
  vocab_size: pos,
  hidden_size: pos,
  intermediate_size: pos,
  num_hidden_layers: pos,
  num_attention_heads: pos,
  num_key_value_heads: pos.nullish(),
  head_dim: pos.nullish(),
  hidden_act: z.string().default('silu'),
  rms_norm_eps: z.number().positive().default(1e-6),
  rope_theta: z.number().positive().default(10000),
  rope_scaling: z.record(z.string(), z.unknown()).nullish(),
  /** transformers 5 writes rope_theta and the scaling together here instead. */
  rope_parameters: z.record(z.string(), z.unknown()).nullish(),
  max_position_embeddings: pos,
  tie_word_embeddings: z.boolean().default(false),
  attention_bias: z.boolean().default(false),
  mlp_bias: z.boolean().default(false),
  sliding_window: z.number().int().nullish(),
  use_sliding_window: z.boolean().default(false),
  quantization_config: z.unknown().optional(),
  partial_rotary_factor: z.number().optional(),
  bos_token_id: tokenIds,
  eos_token_id: tokenIds,
});

export class ConfigError extends Error {}

function refuse(field: string, detail: string): never {
  throw new ConfigError(`config.json: ${field} ${detail}`);
}

const num = (r: Record<string, unknown>, key: string, field: string, dflt?: number): number => {
  const v = r[key] ?? dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) refuse(`${field}.${key}`, `must be a positive number, got ${JSON.stringify(r[key])}`);
  return v;
};

function ropeScaling(raw: Record<string, unknown> | null | undefined): RopeScaling {
  if (!raw) return { type: 'default' };
  // transformers writes `rope_type`; older configs say `type`.
  const key = 'rope_type' in raw ? 'rope_type' : 'type';
  const type = raw[key];
  if (type === 'default') return { type: 'default' };
  if (type === 'linear') return { type: 'linear', factor: num(raw, 'factor', 'rope_scaling') };
  if (type === 'llama3') {
    const s = {
      type: 'llama3' as const,
      factor: num(raw, 'factor', 'rope_scaling'),
      lowFreqFactor: num(raw, 'low_freq_factor', 'rope_scaling'),
      highFreqFactor: num(raw, 'high_freq_factor', 'rope_scaling'),
      originalMaxPositionEmbeddings: num(raw, 'original_max_position_embeddings', 'rope_scaling'),
    };
    if (s.highFreqFactor <= s.lowFreqFactor) refuse('rope_scaling.high_freq_factor', `(${s.highFreqFactor}) must exceed low_freq_factor (${s.lowFreqFactor})`);
    return s;
  }
  refuse(`rope_scaling.${key}`, `${JSON.stringify(type)} is not supported (supported: default, linear, llama3)`);
}

function rope(r: z.infer<typeof Raw>): { ropeTheta: number; ropeScaling: RopeScaling } {
  const p = r.rope_parameters;
  if (!p) return { ropeTheta: r.rope_theta, ropeScaling: ropeScaling(r.rope_scaling) };
  if (r.rope_scaling) refuse('rope_parameters', 'and rope_scaling are both set; keep one');
  const theta = p.rope_theta ?? r.rope_theta;
  if (typeof theta !== 'number' || !(theta > 0)) refuse('rope_parameters.rope_theta', `must be a positive number, got ${JSON.stringify(p.rope_theta)}`);
  try {
    return { ropeTheta: theta, ropeScaling: ropeScaling(p) };
  } catch (e) {
    throw new ConfigError((e as Error).message.replace('config.json: rope_scaling.', 'config.json: rope_parameters.'));
  }
}

/** Validate a parsed config.json; throws ConfigError naming the offending field. */
export function parseHfConfig(json: unknown): HfModelConfig {
  const parsed = Raw.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    refuse(i.path.join('.') || '(root)', `is invalid: ${i.message}`);
  }
  const r = parsed.data;
  if (r.architectures.length !== 1 || !ARCHITECTURES.includes(r.architectures[0] as Architecture))
    refuse('architectures', `${JSON.stringify(r.architectures)} is not supported (supported: ${ARCHITECTURES.join(', ')})`);
  const architecture = r.architectures[0] as Architecture;
  if (r.hidden_act !== 'silu') refuse('hidden_act', `"${r.hidden_act}" is not supported (only "silu": SwiGLU MLPs)`);
  if (r.quantization_config !== undefined) refuse('quantization_config', 'is set: quantized checkpoints are not supported');
  if (r.partial_rotary_factor !== undefined && r.partial_rotary_factor !== 1)
    refuse('partial_rotary_factor', `${r.partial_rotary_factor} is not supported (only 1)`);
  const nKvHeads = r.num_key_value_heads ?? r.num_attention_heads;
  if (r.num_attention_heads % nKvHeads !== 0)
    refuse('num_key_value_heads', `(${nKvHeads}) must divide num_attention_heads (${r.num_attention_heads}) for grouped-query attention`);
  // Qwen3Config's head_dim defaults to 128, not hidden_size / heads: never guess it.
  if (architecture === 'Qwen3ForCausalLM' && r.head_dim == null) refuse('head_dim', 'is missing (Qwen3 configs must state it)');
  const headDim = r.head_dim ?? r.hidden_size / r.num_attention_heads;
  if (!Number.isInteger(headDim))
    refuse('hidden_size', `(${r.hidden_size}) is not divisible by num_attention_heads (${r.num_attention_heads}) and head_dim is not set`);
  if (headDim % 2 !== 0) refuse('head_dim', `(${headDim}) must be even for rotary embeddings`);
  if (architecture === 'MistralForCausalLM' && r.sliding_window != null && r.sliding_window < r.max_position_embeddings)
    refuse('sliding_window', `(${r.sliding_window}) is set: sliding-window attention is not supported (set it to null to attend to the whole context)`);
  if ((architecture === 'Qwen2ForCausalLM' || architecture === 'Qwen3ForCausalLM') && r.use_sliding_window)
    refuse('use_sliding_window', 'is true: sliding-window attention is not supported');
  const ids = (v: number | number[] | null | undefined) => (v == null ? [] : Array.isArray(v) ? v : [v]);
  return {
    architecture,
    vocabSize: r.vocab_size,
    hiddenSize: r.hidden_size,
    intermediateSize: r.intermediate_size,
    nLayers: r.num_hidden_layers,
    nHeads: r.num_attention_heads,
    nKvHeads,
    headDim,
    rmsNormEps: r.rms_norm_eps,
    ...rope(r),
    maxPositionEmbeddings: r.max_position_embeddings,
    tieWordEmbeddings: r.tie_word_embeddings,
    qkvBias: architecture === 'Qwen2ForCausalLM' ? true : architecture === 'MistralForCausalLM' ? false : r.attention_bias,
    oBias: architecture === 'LlamaForCausalLM' || architecture === 'Qwen3ForCausalLM' ? r.attention_bias : false,
    mlpBias: architecture === 'LlamaForCausalLM' ? r.mlp_bias : false,
    qkNorm: architecture === 'Qwen3ForCausalLM',
    bosTokenId: ids(r.bos_token_id)[0],
    eosTokenIds: ids(r.eos_token_id),
  };
}

/**
 * RoPE inverse frequencies [headDim / 2], following transformers' rope initialisers
 * (default, linear, llama3) in float32 arithmetic like the PyTorch code, so positions
 * rotate by the same angles.
 */
export function ropeInvFreq(c: HfModelConfig): Float32Array {
  const f = Math.fround;
  const half = c.headDim / 2;
  const inv = new Float32Array(half);
  for (let i = 0; i < half; i++) inv[i] = f(1 / f(c.ropeTheta ** f((2 * i) / c.headDim)));
  const s = c.ropeScaling;
  if (s.type === 'linear') for (let i = 0; i < half; i++) inv[i] = f(inv[i]! / s.factor);
  if (s.type === 'llama3') {
    const lowWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
    const highWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
    for (let i = 0; i < half; i++) {
      const x = inv[i]!;
      const wavelen = (2 * Math.PI) / x;
      if (wavelen > lowWavelen) inv[i] = f(x / s.factor);
      else if (wavelen >= highWavelen) {
        const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        inv[i] = f(((1 - smooth) * x) / s.factor + smooth * x);
      }
    }
  }
  return inv;
}
