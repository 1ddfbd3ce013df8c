import { describe, expect, it } from 'vitest';
import { parseHfConfig } from './config';

const LLAMA = {
  architectures: ['LlamaForCausalLM'],
  vocab_size: 128256,
  hidden_size: 2048,
  intermediate_size: 8192,
  num_hidden_layers: 16,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  hidden_act: 'silu',
  max_position_embeddings: 131072,
  rms_norm_eps: 1e-5,
  rope_theta: 500000,
  rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
  tie_word_embeddings: true,
  bos_token_id: 128000,
  eos_token_id: [128001, 128008, 128009],
};

const refuse = (over: Record<string, unknown>, field: RegExp) => expect(() => parseHfConfig({ ...LLAMA, ...over })).toThrow(field);

describe('config.json validation', () => {
  it('normalises supported configs (Llama 3.2 1B shape, Qwen2, Qwen3, Mistral)', () => {
    expect(parseHfConfig(LLAMA)).toMatchObject({
      architecture: 'LlamaForCausalLM',
      nKvHeads: 8,
      headDim: 64,
      ropeScaling: { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
      tieWordEmbeddings: true,
      qkvBias: false,
      qkNorm: false,
      eosTokenIds: [128001, 128008, 128009],
    });
    expect(
      parseHfConfig({ ...LLAMA, architectures: ['Qwen2ForCausalLM'], rope_scaling: null, use_sliding_window: false, sliding_window: 32768 }),
    ).toMatchObject({
      qkvBias: true,
      oBias: false,
      ropeScaling: { type: 'default' },
    });
    expect(parseHfConfig({ ...LLAMA, architectures: ['Qwen3ForCausalLM'], head_dim: 128, rope_scaling: null })).toMatchObject({
      qkNorm: true,
      headDim: 128,
      qkvBias: false,
    });
    expect(parseHfConfig({ ...LLAMA, architectures: ['MistralForCausalLM'], sliding_window: null, rope_scaling: { type: 'linear', factor: 2 } })).toMatchObject(
      {
        ropeScaling: { type: 'linear', factor: 2 },
      },
    );
    // transformers 5 layout: theta and scaling in rope_parameters
    expect(
      parseHfConfig({ ...LLAMA, rope_scaling: undefined, rope_theta: undefined, rope_parameters: { ...LLAMA.rope_scaling, rope_theta: 500000 } }),
    ).toMatchObject({ ropeTheta: 500000, ropeScaling: { type: 'llama3', factor: 32 } });
    expect(parseHfConfig({ ...LLAMA, rope_scaling: undefined, rope_parameters: { rope_type: 'default', rope_theta: 1e6 } })).toMatchObject({
      ropeTheta: 1e6,
      ropeScaling: { type: 'default' },
    });
    // A window as long as the context never applies, so it is accepted.
    expect(parseHfConfig({ ...LLAMA, architectures: ['MistralForCausalLM'], sliding_window: 131072 }).architecture).toBe('MistralForCausalLM');
  });

  it('refuses what it does not implement, naming the field', () => {
    refuse({ architectures: ['GPT2LMHeadModel'] }, /config\.json: architectures \["GPT2LMHeadModel"\] is not supported/);
    refuse({ rope_scaling: { rope_type: 'yarn', factor: 4 } }, /rope_scaling\.rope_type "yarn" is not supported/);
    refuse({ rope_scaling: { type: 'dynamic', factor: 2 } }, /rope_scaling\.type "dynamic" is not supported/);
    refuse({ rope_scaling: { rope_type: 'llama3', factor: 8, high_freq_factor: 4, original_max_position_embeddings: 8192 } }, /rope_scaling\.low_freq_factor/);
    refuse({ hidden_act: 'gelu' }, /hidden_act "gelu" is not supported/);
    refuse({ num_key_value_heads: 5 }, /num_key_value_heads \(5\) must divide num_attention_heads \(32\)/);
    refuse({ architectures: ['MistralForCausalLM'], sliding_window: 4096 }, /sliding_window \(4096\) is set/);
    refuse({ architectures: ['Qwen2ForCausalLM'], use_sliding_window: true }, /use_sliding_window is true/);
    refuse({ quantization_config: { quant_method: 'gptq' } }, /quantization_config is set/);
    refuse({ architectures: ['Qwen3ForCausalLM'], rope_scaling: null }, /config\.json: head_dim is missing/);
    refuse(
      { rope_scaling: undefined, rope_parameters: { rope_type: 'yarn', rope_theta: 1e6, factor: 4 } },
      /rope_parameters\.rope_type "yarn" is not supported/,
    );
    refuse({ vocab_size: undefined }, /vocab_size is invalid/);
    refuse({ hidden_size: 100, num_attention_heads: 32 }, /hidden_size \(100\) is not divisible/);
  });
});
