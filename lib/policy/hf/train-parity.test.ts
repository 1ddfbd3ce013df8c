import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LossConfig, type LossConfigInput } from '../losses';
import { OptimConfig } from '../optim';
import { Rng } from '@/core/random';
import { STORIES260K_DIR } from '@/test/models';
import { LORA_MODULES } from './export-peft';
import { HfPolicy } from './hf-policy';
import { HfTrainer } from './hf-trainer';
import { loraSpecs } from './lora';
import { maxAbsDiff, offPolicyBatch, packed, PARITY_TOKENS, runReference, runTrainReference, type TrainReferenceResult } from './torch-reference';

// The training graphs against an independent PyTorch autograd implementation
// (reference_train_torch.py) on tiny random checkpoints the test writes: per-token logprobs,
// every gradient (full fine-tuning: all weights; LoRA: every A and B) and one clipped AdamW
// step (torch.optim.AdamW, micro-batches accumulated on our side) for Llama, Qwen2 (q/k/v
// biases) and Qwen3 (q/k norm), from f32 and bf16 checkpoints.

const base = { vocab_size: 512, max_position_embeddings: 64, rms_norm_eps: 1e-5, hidden_act: 'silu', bos_token_id: 1, eos_token_id: 2 };
type Case = { name: string; dtype: 'F32' | 'BF16'; config: Record<string, unknown> };
const CASES: Case[] = [
  {
    name: 'llama-gqa-llama3rope-biases-f32',
    dtype: 'F32',
    config: {
      ...base,
      architectures: ['LlamaForCausalLM'],
      hidden_size: 48,
      intermediate_size: 80,
      num_hidden_layers: 2,
      num_attention_heads: 6,
      num_key_value_heads: 2,
      rope_theta: 10000,
      rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 16 },
      attention_bias: true,
      mlp_bias: true,
      tie_word_embeddings: false,
    },
  },
  {
    name: 'llama-tied-bf16',
    dtype: 'BF16',
    config: {
      ...base,
      architectures: ['LlamaForCausalLM'],
      hidden_size: 32,
      intermediate_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      rope_theta: 500,
      tie_word_embeddings: true,
    },
  },
  {
    name: 'qwen2-qkvbias-f32',
    dtype: 'F32',
    config: {
      ...base,
      architectures: ['Qwen2ForCausalLM'],
      hidden_size: 32,
      intermediate_size: 72,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      rope_theta: 1000000,
      tie_word_embeddings: false,
    },
  },
  {
    name: 'qwen3-qknorm-bf16',
    dtype: 'BF16',
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
      tie_word_embeddings: true,
    },
  },
];

const OPTIM = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1, warmupSteps: 0, totalSteps: 10, minLrRatio: 0.1 };
const GRPO: LossConfigInput = { kind: 'grpo', clipLow: 0.2, clipHigh: 0.28, clipRatioC: 3, klCoef: 0.1, entropyCoef: 0.01, temperature: 0.9 };
const SFT: LossConfigInput = { kind: 'sft' };
const LORA = { rank: 4, alpha: 8, targetModules: [...LORA_MODULES] };
const SESSION = { providers: ['cpu' as const], threads: 1 };
/** Logprobs: as the inference parity test. Gradients and updates: relative to the tensor's largest reference entry. */
const LP_TOL = 1e-4;
const GRAD_TOL = 2e-5;
const STEP_TOL = 1e-6;

let root: string;
const dirOf = (c: Case) => path.join(root, c.name);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-hf-train-'));
  for (const c of CASES) {
    await fs.mkdir(dirOf(c), { recursive: true });
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES260K_DIR, f), path.join(dirOf(c), f));
  }
  await runReference({ make: CASES.map((c, i) => ({ dir: dirOf(c), config: c.config, dtype: c.dtype, seed: 300 + i })) });
}, 120_000);

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const lossJson = (l: LossConfigInput) => LossConfig.parse(l) as Record<string, unknown>;

function randomLora(t: HfTrainer, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  return new Map(loraSpecs(t.config, LORA).map((s) => [s.name, Float32Array.from({ length: s.shape[0]! * s.shape[1]! }, () => rng.normal() * 0.2)]));
}

/** Largest |ours - theirs| over a tensor, relative to its largest reference entry (at least 1e-3). */
function relDiff(ours: ArrayLike<number>, theirs: number[]): number {
  const scale = Math.max(1e-3, ...theirs.map(Math.abs));
  return maxAbsDiff(ours, theirs) / scale;
}

function worst(ours: Map<string, Float32Array>, theirs: Record<string, number[]>): { name: string; rel: number; abs: number } {
  expect([...ours.keys()].sort()).toEqual(Object.keys(theirs).sort());
  let w = { name: '', rel: 0, abs: 0 };
  for (const [n, a] of ours) {
    const rel = relDiff(a, theirs[n]!);
    const abs = maxAbsDiff(a, theirs[n]!);
    if (rel >= w.rel) w = { name: n, rel, abs: Math.max(abs, w.abs) };
    else w.abs = Math.max(abs, w.abs);
  }
  return w;
}

/**
 * Compare weights after one AdamW step with torch's. Adam's first step is about
 * lr·g/(|g| + eps) per entry, so an entry whose gradient is at float32 noise level (k_proj's
 * bias gets almost none: softmax ignores a per-query constant) moves by up to ±lr on rounding
 * in either implementation. Each entry may differ by STEP_TOL plus what the gradient tolerance
 * (GRAD_TOL of the tensor's largest gradient) becomes through that map: lr·δg·eps/(|g|+eps)²,
 * with g after clipping. `loose` counts entries that needed that allowance (differ by more than STEP_TOL).
 */
function stepAgreement(ours: Map<string, Float32Array>, ref: TrainReferenceResult, gradNorm: number) {
  const clip = Math.min(1, OPTIM.maxGradNorm / (gradNorm + 1e-6));
  const failures: string[] = [];
  let abs = 0;
  let loose = 0;
  let n = 0;
  for (const [name, w] of ours) {
    const theirs = ref.updated![name]!;
    const g = ref.grads[name]!;
    const dg = GRAD_TOL * Math.max(...g.map(Math.abs)) * clip;
    for (let i = 0; i < w.length; i++) {
      const gi = Math.abs(g[i]!) * clip;
      const allowance = (ref.lr! * dg * OPTIM.eps) / (gi + OPTIM.eps) ** 2;
      const d = Math.abs(w[i]! - theirs[i]!);
      n++;
      if (d > STEP_TOL) loose++;
      else abs = Math.max(abs, d);
      if (d > STEP_TOL + allowance) failures.push(`${name}[${i}]: ours ${w[i]} torch ${theirs[i]} (gradient ${g[i]})`);
    }
  }
  return { failures, abs, loose, n };
}

describe('Hugging Face training graphs match PyTorch autograd', () => {
  CASES.forEach((c) => {
    it(`${c.name}: logprobs, every gradient (full and LoRA, GRPO and SFT) and one AdamW step`, async () => {
      const full = await HfTrainer.load(dirOf(c), { optim: OPTIM }, SESSION);
      const lora = await HfTrainer.load(dirOf(c), { optim: OPTIM, lora: LORA, seed: 1 }, SESSION);
      try {
        const seqs = await offPolicyBatch(full);
        const loraValues = randomLora(lora, 11);
        lora.setTrainable(loraValues);
        const loraRef = {
          rank: LORA.rank,
          alpha: LORA.alpha,
          targets: LORA.targetModules,
          tensors: Object.fromEntries([...loraValues].map(([n, a]) => [n, Array.from(a)])),
        };
        const batch = packed(seqs);
        const optim = OptimConfig.parse(OPTIM);
        const [refFull, refSft, refLora] = await runTrainReference([
          { dir: dirOf(c), batch, loss: lossJson(GRPO), optim, step: true },
          { dir: dirOf(c), batch, loss: lossJson(SFT), optim },
          { dir: dirOf(c), batch, loss: lossJson(GRPO), optim, step: true, lora: loraRef },
        ]);

        // Logprobs of the tempered distribution, per token, base and adapted.
        const T = batch.tokens[0]!.length;
        const lpDiff = async (t: HfTrainer, ref: TrainReferenceResult) => {
          const ours = await t.score(PARITY_TOKENS, { temperature: 0.9 });
          return Math.max(...PARITY_TOKENS.map((s, b) => maxAbsDiff(ours[b]!.logprobs.slice(1), ref.logprobs.slice(b * T, b * T + s.length - 1))));
        };
        const lpFull = await lpDiff(full, refFull!);
        const lpLora = await lpDiff(lora, refLora!);
        expect(lpFull, 'logprobs (full)').toBeLessThan(LP_TOL);
        expect(lpLora, 'logprobs (LoRA)').toBeLessThan(LP_TOL);

        const check = async (t: HfTrainer, loss: LossConfigInput, ref: TrainReferenceResult, what: string) => {
          const { grads, metrics } = await t.gradients(seqs, loss);
          expect(Math.abs(metrics.loss - ref.loss), `${what}: loss`).toBeLessThan(1e-5 * Math.max(1, Math.abs(ref.loss)));
          const w = worst(grads, ref.grads);
          expect(w.rel, `${what}: gradient of ${w.name}`).toBeLessThan(GRAD_TOL);
          return w;
        };
        const gFull = await check(full, GRPO, refFull!, 'full GRPO');
        const gSft = await check(full, SFT, refSft!, 'full SFT');
        const gLora = await check(lora, GRPO, refLora!, 'LoRA GRPO');

        // One step each, in micro-batches of 2 (accumulation) against torch's single batch.
        const baseBefore = full.trainableWeights();
        const stepFull = await full.trainStep(seqs, GRPO, { microBatchSize: 2 });
        const stepLora = await lora.trainStep(seqs, GRPO, { microBatchSize: 2 });
        for (const [r, ref] of [
          [stepFull, refFull!],
          [stepLora, refLora!],
        ] as const) {
          expect(r.skipped).toBe(false);
          expect(r.microBatches).toBe(2);
          expect(Math.abs(r.gradNorm - ref.grad_norm!) / ref.grad_norm!).toBeLessThan(1e-4);
          expect(Math.abs(r.lr - ref.lr!) / ref.lr!).toBeLessThan(1e-6);
        }
        const uFull = stepAgreement(full.trainableWeights(), refFull!, stepFull.gradNorm);
        const uLora = stepAgreement(lora.trainableWeights(), refLora!, stepLora.gradNorm);
        expect(uFull.failures, `AdamW update (full): ${uFull.failures.slice(0, 3).join('; ')}`).toEqual([]);
        expect(uLora.failures, `AdamW update (LoRA): ${uLora.failures.slice(0, 3).join('; ')}`).toEqual([]);
        // The step moved the weights (so agreeing is not agreeing on nothing), and LoRA left the base alone.
        expect(maxAbsDiff(baseBefore.get('model.norm.weight')!, full.trainableWeights().get('model.norm.weight')!)).toBeGreaterThan(1e-3);
        expect(lora.params['model.layers.0.mlp.up_proj.weight']!.data).toBe(lora.model.weights.get('model.layers.0.mlp.up_proj.weight'));
        const line = [
          c.name,
          `logprobs ${Math.max(lpFull, lpLora).toExponential(1)}`,
          `grads full GRPO ${gFull.abs.toExponential(1)} (rel ${gFull.rel.toExponential(1)})`,
          `SFT ${gSft.abs.toExponential(1)} (rel ${gSft.rel.toExponential(1)})`,
          `LoRA ${gLora.abs.toExponential(1)} (rel ${gLora.rel.toExponential(1)})`,
          `AdamW step full ${uFull.abs.toExponential(1)}, LoRA ${uLora.abs.toExponential(1)} (${uFull.loose + uLora.loose} of ${uFull.n + uLora.n} entries needed the noise allowance)`,
        ].join(' | ');
        console.log(line);
      } finally {
        await full.release();
        await lora.release();
      }
    }, 120_000);
  });
});

describe('LoRA', () => {
  it('starts as the base model (B = 0), A like PEFT (kaiming-uniform, bound 1/sqrt(in)), PEFT names, moments only for A and B', async () => {
    const dir = dirOf(CASES[0]!);
    const full = await HfTrainer.load(dir, {}, SESSION);
    const lora = await HfTrainer.load(dir, { lora: { rank: 2, alpha: 16, targetModules: ['q_proj', 'down_proj'] }, seed: 3 }, SESSION);
    try {
      const names = [...lora.trainable().keys()];
      expect(names).toEqual([
        'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight',
        'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight',
        'base_model.model.model.layers.0.mlp.down_proj.lora_A.weight',
        'base_model.model.model.layers.0.mlp.down_proj.lora_B.weight',
        'base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight',
        'base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight',
        'base_model.model.model.layers.1.mlp.down_proj.lora_A.weight',
        'base_model.model.model.layers.1.mlp.down_proj.lora_B.weight',
      ]);
      const w = lora.trainableWeights();
      const A = w.get('base_model.model.model.layers.0.mlp.down_proj.lora_A.weight')!; // [2, 80]
      expect(lora.trainable().get('base_model.model.model.layers.0.mlp.down_proj.lora_A.weight')!.dims).toEqual([2, 80]);
      expect(Math.max(...Array.from(A, Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(80));
      expect(Math.max(...Array.from(A, Math.abs))).toBeGreaterThan(0.8 / Math.sqrt(80));
      expect(w.get('base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight')!.every((x) => x === 0)).toBe(true);
      const [a, b] = [await full.score(PARITY_TOKENS), await lora.score(PARITY_TOKENS)];
      a.forEach((s, i) => expect(s.logprobs).toEqual(b[i]!.logprobs));
      // From B = 0, dL/dA = 0 (A's output is multiplied by B) and dL/dB is not; a step keeps the base.
      const seqs = await offPolicyBatch(lora);
      const { grads } = await lora.gradients(seqs, { kind: 'grpo' });
      for (const [n, d] of grads)
        expect(
          d.some((x) => x !== 0),
          n,
        ).toBe(n.includes('lora_B'));
      const r = await lora.trainStep(seqs, { kind: 'grpo' });
      expect(r.skipped).toBe(false);
      expect(
        lora
          .trainableWeights()
          .get('base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight')!
          .some((x) => x !== 0),
      ).toBe(true);
      expect(lora.params['model.layers.0.self_attn.q_proj.weight']!.data).toBe(lora.model.weights.get('model.layers.0.self_attn.q_proj.weight'));
      await expect(HfTrainer.load(dir, { lora: { rank: 2, alpha: 16, targetModules: [] } })).rejects.toThrow(/at least one target module/);
      const ppo = seqs.map((q) => ({ ...q, oldValues: q.tokens.map(() => 0), returns: q.tokens.map(() => 1) }));
      await expect(full.trainStep(ppo, { kind: 'ppo' })).rejects.toThrow(/ppo needs a value head/);
    } finally {
      await full.release();
      await lora.release();
    }
  }, 60_000);

  it("shares the sampling policy's weight tensors (one copy), and a LoRA step leaves them as they were", async () => {
    const policy = await HfPolicy.load(dirOf(CASES[2]!), SESSION);
    const t = HfTrainer.fromModel(policy.model, { lora: { rank: 2, alpha: 4, targetModules: ['v_proj', 'up_proj'] } }, SESSION, policy.params);
    try {
      for (const [n, w] of Object.entries(policy.params)) expect(t.params[n]!.data, n).toBe(w.data);
      const before = Float32Array.from(policy.params['model.layers.1.mlp.up_proj.weight']!.data as Float32Array);
      await t.trainStep(await offPolicyBatch(t), { kind: 'grpo' });
      for (const [n, w] of Object.entries(policy.params)) expect(t.params[n]!.data, n).toBe(w.data);
      expect(policy.params['model.layers.1.mlp.up_proj.weight']!.data).toEqual(before);
    } finally {
      await t.release();
      await policy.release();
    }
  });
});
