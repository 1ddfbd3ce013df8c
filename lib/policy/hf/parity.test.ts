import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HfPolicy } from './hf-policy';
import { logSoftmaxRows, maxAbsDiff, runReference, type ReferenceRequest, type ReferenceResult } from './torch-reference';
import { STORIES260K_DIR } from '@/test/models';

// Tiny random checkpoints of every supported architecture, written as safetensors by the
// PyTorch reference (reference_torch.py: its own writer, reader and forward), loaded here
// and compared with the reference: full logits and logprobs, and batched, left-padded
// greedy decoding with the KV cache against the reference's cache-free decoding.

const STORIES = STORIES260K_DIR;
const TOL = 1e-4;

type Case = { name: string; dtype: 'F32' | 'F16' | 'BF16'; shards: number; config: Record<string, unknown> };
const base = { vocab_size: 512, max_position_embeddings: 64, rms_norm_eps: 1e-5, hidden_act: 'silu', bos_token_id: 1, eos_token_id: 2 };
const CASES: Case[] = [
  {
    name: 'llama-gqa-llama3rope-biases-f32',
    dtype: 'F32',
    shards: 1,
    config: {
      ...base,
      architectures: ['LlamaForCausalLM'],
      hidden_size: 48,
      intermediate_size: 80,
      num_hidden_layers: 2,
      num_attention_heads: 6,
      num_key_value_heads: 2,
      rope_theta: 10000,
      // original 16 positions: head_dim 8's wavelengths 6.3 / 63 / 628 / 6283 fall in the
      // smoothed band and the scaled band, so both llama3 branches are exercised
      rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 16 },
      attention_bias: true,
      mlp_bias: true,
      tie_word_embeddings: false,
    },
  },
  {
    name: 'llama-mha-tied-linearrope-bf16-sharded',
    dtype: 'BF16',
    shards: 2,
    config: {
      ...base,
      architectures: ['LlamaForCausalLM'],
      hidden_size: 32,
      intermediate_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      rope_theta: 500,
      rope_scaling: { type: 'linear', factor: 2 },
      tie_word_embeddings: true,
    },
  },
  {
    name: 'qwen2-qkvbias-f32-sharded',
    dtype: 'F32',
    shards: 3,
    config: {
      ...base,
      architectures: ['Qwen2ForCausalLM'],
      hidden_size: 32,
      intermediate_size: 72,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      rope_theta: 1000000,
      use_sliding_window: false,
      sliding_window: 4096,
      tie_word_embeddings: false,
    },
  },
  {
    name: 'qwen3-qknorm-headdim16-bf16',
    dtype: 'BF16',
    shards: 1,
    config: {
      ...base,
      architectures: ['Qwen3ForCausalLM'],
      hidden_size: 32,
      intermediate_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      rope_theta: 1000000,
      attention_bias: false,
      tie_word_embeddings: true,
    },
  },
  {
    name: 'mistral-mqa-f16',
    dtype: 'F16',
    shards: 1,
    config: {
      ...base,
      architectures: ['MistralForCausalLM'],
      hidden_size: 32,
      intermediate_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 1,
      rope_theta: 10000,
      sliding_window: null,
      tie_word_embeddings: false,
    },
  },
];

// Prompts of different lengths, so the batch is left-padded.
const LOGIT_PROMPTS = [
  [1, 400, 17, 300, 5, 511, 42, 9, 260, 33, 100, 7],
  [1, 3, 4],
];
const GREEDY_PROMPTS = [
  [1, 77, 300, 12, 9, 401, 55],
  [1, 250],
  [1, 8, 9, 10, 11],
];
const NEW = 10;

let root: string;
let ref: ReferenceResult;
const dirOf = (c: Case) => path.join(root, c.name);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-hf-parity-'));
  const req: ReferenceRequest = {
    make: CASES.map((c, i) => ({ dir: dirOf(c), config: c.config, dtype: c.dtype, shards: c.shards, seed: 100 + i })),
    runs: CASES.map((c) => ({ dir: dirOf(c), logits: LOGIT_PROMPTS, greedy: { prompts: GREEDY_PROMPTS, new: NEW, eos: [2] } })),
  };
  // The tiny models share stories260K's 512-token tokenizer (the loader needs one).
  await fs.mkdir(root, { recursive: true });
  for (const c of CASES) {
    await fs.mkdir(dirOf(c), { recursive: true });
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES, f), path.join(dirOf(c), f));
  }
  ref = await runReference(req);
}, 120_000);

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('Hugging Face decoders match the PyTorch reference', () => {
  CASES.forEach((c, ci) => {
    it(`${c.name}: logits and logprobs within ${TOL}; batched greedy decoding with the KV cache token for token`, async () => {
      const policy = await HfPolicy.load(dirOf(c), { providers: ['cpu'], threads: 1 });
      try {
        const expectDtype = { [c.dtype]: expect.any(Number) };
        expect(policy.model.storedDtypes).toEqual(expectDtype);
        const V = policy.config.vocabSize;
        const diffs: number[] = [];
        let scale = 0;
        for (const [i, prompt] of LOGIT_PROMPTS.entries()) {
          const ours = await policy.logits(prompt);
          const theirs = ref.runs[ci]!.logits[i]!;
          const logitDiff = maxAbsDiff(ours, theirs);
          const lpDiff = maxAbsDiff(logSoftmaxRows(ours, V), logSoftmaxRows(theirs, V));
          diffs.push(logitDiff);
          scale = Math.max(scale, ...Array.from(theirs, Math.abs));
          expect(logitDiff, `logits of prompt ${i}`).toBeLessThan(TOL);
          expect(lpDiff, `logprobs of prompt ${i}`).toBeLessThan(TOL);
        }
        // Greedy: all prompts in one left-padded batch with the cache, and without it.
        const expected = ref.runs[ci]!.greedy!;
        for (const kvCache of [true, false]) {
          const out = await policy.sample(GREEDY_PROMPTS, { maxNewTokens: NEW, temperature: 0, kvCache });
          out.forEach((o, b) => {
            expect(o.tokens, `greedy row ${b} (kvCache ${kvCache})`).toEqual(expected[b]!.tokens);
            expect(maxAbsDiff(o.logprobs, expected[b]!.logprobs), `greedy logprobs row ${b}`).toBeLessThan(TOL);
          });
        }
        console.log(`${c.name}: max |logit diff| ${Math.max(...diffs).toExponential(2)} (logits up to ${scale.toFixed(1)} in magnitude)`);
      } finally {
        await policy.release();
      }
    });
  });
});
