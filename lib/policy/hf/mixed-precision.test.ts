import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bf16ToF32, f16ToF32, f32ToBf16Bits, f32ToF16Bits } from '../half-floats';
import { LossConfig, type LossConfigInput } from '../losses';
import { createSession, f32, i64 } from '../onnx-session';
import { Graph } from '../onnx/graph';
import { matmulMode, MixedMatmuls, type MatmulMode, type Precision } from '../onnx/mixed-precision';
import { OptimConfig } from '../optim';
import { Rng } from '@/core/random';
import { STORIES260K_DIR } from '@/test/models';
import { HfPolicy } from './hf-policy';
import { HfTrainer } from './hf-trainer';
import { buildHfInferenceGraph } from './inference-graph';
import { buildHfScoreGraph, buildHfTrainGraph } from './train-graph';
import { loraSpecs } from './lora';
import { maxAbsDiff, offPolicyBatch, packed, PARITY_TOKENS, runReference, runTrainReference, type TrainReferenceResult } from './torch-reference';

// Mixed precision (onnx/mixed-precision.ts): float32 master weights, matrix products on
// fp16 / bf16 operands. There is no GPU here, so the graphs that run are the CPU provider's
// (products emulated by rounding through the half type, float32 accumulation); they are
// checked against PyTorch autograd rounding at the same points (reference_train_torch.py
// "half"). The CUDA graphs (real half kernels: inference, scoring and training) are only
// checked to type-check in onnxruntime.

const base = { vocab_size: 512, max_position_embeddings: 64, rms_norm_eps: 1e-5, hidden_act: 'silu', bos_token_id: 1, eos_token_id: 2 };
const MODEL = {
  ...base,
  architectures: ['LlamaForCausalLM'],
  hidden_size: 48,
  intermediate_size: 80,
  num_hidden_layers: 2,
  num_attention_heads: 6,
  num_key_value_heads: 2,
  rope_theta: 10000,
  attention_bias: true,
  tie_word_embeddings: false,
};
const OPTIM = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1, warmupSteps: 0, totalSteps: 10, minLrRatio: 0.1 };
const GRPO: LossConfigInput = { kind: 'grpo', clipLow: 0.2, clipHigh: 0.28, clipRatioC: 3, klCoef: 0.1, entropyCoef: 0.01, temperature: 0.9 };
const LORA = { rank: 4, alpha: 8, targetModules: ['q_proj' as const, 'v_proj' as const, 'down_proj' as const] };
const SESSION = { providers: ['cpu' as const], threads: 1 };

let root: string;
let dir: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-mixed-'));
  dir = path.join(root, 'llama');
  await fs.mkdir(dir);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES260K_DIR, f), path.join(dir, f));
  await runReference({ make: [{ dir, config: MODEL, dtype: 'F32', seed: 41 }] });
}, 120_000);

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Sum of |a - b| over every entry of every tensor, relative to the sum of |b|. */
function relL1(a: Map<string, Float32Array>, b: Record<string, number[]>): number {
  let d = 0;
  let n = 0;
  for (const [k, x] of a)
    b[k]!.forEach((v, i) => {
      d += Math.abs(x[i]! - v);
      n += Math.abs(v);
    });
  return d / n;
}

const round = { float16: (x: number) => f16ToF32(f32ToF16Bits(x)), bfloat16: (x: number) => bf16ToF32(f32ToBf16Bits(x)) };

describe('mixed-precision matrix products', () => {
  it('emulated on the CPU: half operands, float32 accumulation, half result (onnxruntime does not fold the rounding away)', async () => {
    const rng = new Rng(2);
    const [M, K, N] = [5, 64, 7];
    const a = Float32Array.from({ length: M * K }, () => rng.normal());
    const w = Float32Array.from({ length: N * K }, () => rng.normal() * 0.3);
    for (const half of ['float16', 'bfloat16'] as const) {
      const mode: MatmulMode = { half, emulate: true };
      const g = new Graph('mm');
      const x = g.input('x', 'float32', [M, K]);
      const wv = g.input('w', 'float32', [N, K]);
      g.output(new MixedMatmuls(mode).gemm([x, wv], [M, N], { transB: 1 }), 'y');
      const { session } = await createSession(g.toBytes(), { providers: ['cpu'], threads: 1 });
      const y = (await session.run({ x: f32(a, [M, K]), w: f32(w, [N, K]) })).y!.data as Float32Array;
      await session.release();
      const r = round[half];
      const want = new Float32Array(M * N);
      const exact = new Float32Array(M * N);
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          let s = 0;
          let e = 0;
          for (let k = 0; k < K; k++) {
            s += r(a[i * K + k]!) * r(w[j * K + k]!);
            e += a[i * K + k]! * w[j * K + k]!;
          }
          want[i * N + j] = r(s);
          exact[i * N + j] = e;
        }
      // every result is a half value, and the one rounding the operands and the sum gives
      expect(Array.from(y).every((v) => r(v) === v)).toBe(true);
      expect(maxAbsDiff(y, want)).toBe(0);
      expect(maxAbsDiff(y, exact)).toBeGreaterThan(half === 'float16' ? 1e-4 : 1e-3);
    }
  });

  it('CUDA graphs (real half kernels; no GPU here) type-check in onnxruntime: fp16 loads on the CPU provider, bf16 lacks only the CPU kernel', async () => {
    const policy = await HfPolicy.load(dir, SESSION);
    const config = policy.config;
    const learner = (mode: 'update' | 'accumulate', lossScale: boolean) => ({
      loss: LossConfig.parse(GRPO),
      optim: OptimConfig.parse(OPTIM),
      batch: 2,
      seqLen: 16,
      mode,
      withAccumulator: true,
      withReference: true,
      lossScale,
    });
    try {
      for (const precision of ['fp16', 'bf16'] as Precision[]) {
        const matmuls = matmulMode(precision, 'cuda');
        expect(matmuls.emulate).toBe(false);
        const graphs: [string, Uint8Array][] = [
          ['prefill', buildHfInferenceGraph({ config, withPast: false, allLogits: true, matmuls }).toBytes()],
          ['decode', buildHfInferenceGraph({ config, withPast: true, matmuls }).toBytes()],
          ['score (LoRA)', buildHfScoreGraph(config, 2, 16, 0.9, LORA, false, matmuls).toBytes()],
          ['train (full, update)', buildHfTrainGraph({ config, matmuls, ...learner('update', precision === 'fp16') }).toBytes()],
          ['train (LoRA, accumulate)', buildHfTrainGraph({ config, matmuls, lora: LORA, ...learner('accumulate', precision === 'fp16') }).toBytes()],
          [
            'train (PPO, value head)',
            buildHfTrainGraph({ config, matmuls, valueHead: true, ...learner('update', false), loss: LossConfig.parse({ kind: 'ppo' }) }).toBytes(),
          ],
        ];
        for (const [what, bytes] of graphs) {
          if (precision === 'fp16') {
            const { session } = await createSession(bytes, { providers: ['cpu'], threads: 1 });
            await session.release();
          } else {
            // a type error would be reported before kernels are looked for
            await expect(createSession(bytes, { providers: ['cpu'], threads: 1 }), what).rejects.toThrow(/Could not find an implementation for (Gemm|MatMul)/);
          }
        }
      }
      // The CPU provider runs the fp16 inference graph in float32 (it casts back and folds the casts):
      // why the CPU gets the emulated graph instead.
      const native = buildHfInferenceGraph({ config, withPast: false, allLogits: true, matmuls: matmulMode('fp16', 'cuda') }).toBytes();
      const { session } = await createSession(native, { providers: ['cpu'], threads: 1 });
      const S = PARITY_TOKENS[0]!.length;
      const mask = new Float32Array(S * S);
      for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) mask[i * S + j] = -1e9;
      const res = await session.run({
        ...policy.params,
        tokens: i64(PARITY_TOKENS[0]!, [1, S]),
        positions: i64(
          PARITY_TOKENS[0]!.map((_, i) => i),
          [1, S],
        ),
        attn_mask: f32(mask, [1, 1, S, S]),
      });
      await session.release();
      expect(maxAbsDiff(res.logits!.data as Float32Array, await policy.logits(PARITY_TOKENS[0]!))).toBeLessThan(1e-5);
    } finally {
      await policy.release();
    }
  }, 120_000);
});

describe('mixed-precision Hugging Face models match PyTorch autograd with the same rounding', () => {
  (['fp16', 'bf16'] as const).forEach((precision) => {
    it(`${precision}: logprobs, every gradient (full and LoRA) and one AdamW step; float32 master weights`, async () => {
      const scale = precision === 'fp16' ? 1024 : 1;
      const full = await HfTrainer.load(dir, { optim: OPTIM }, { ...SESSION, precision });
      const lora = await HfTrainer.load(dir, { optim: OPTIM, lora: LORA, seed: 1 }, { ...SESSION, precision });
      const fp32 = await HfTrainer.load(dir, { optim: OPTIM }, SESSION);
      full.lossScaling = { scale, goodSteps: 0 };
      lora.lossScaling = { scale, goodSteps: 0 };
      try {
        const seqs = await offPolicyBatch(fp32);
        const rng = new Rng(11);
        const loraValues = new Map(
          loraSpecs(lora.config, LORA).map((s) => [s.name, Float32Array.from({ length: s.shape[0]! * s.shape[1]! }, () => rng.normal() * 0.2)]),
        );
        lora.setTrainable(loraValues);
        const loraRef = {
          rank: LORA.rank,
          alpha: LORA.alpha,
          targets: LORA.targetModules,
          tensors: Object.fromEntries([...loraValues].map(([n, a]) => [n, Array.from(a)])),
        };
        const batch = packed(seqs);
        const optim = OptimConfig.parse(OPTIM);
        const loss = LossConfig.parse(GRPO) as Record<string, unknown>;
        const [refFull, refLora, ref32] = await runTrainReference([
          { dir, batch, loss, optim, step: true, half: precision, loss_scale: scale },
          { dir, batch, loss, optim, step: true, half: precision, loss_scale: scale, lora: loraRef },
          { dir, batch, loss, optim },
        ]);
        const T = batch.tokens[0]!.length;
        const lpDiff = async (t: HfTrainer, ref: TrainReferenceResult) => {
          const ours = await t.score(PARITY_TOKENS, { temperature: 0.9 });
          const d = PARITY_TOKENS.flatMap((s, b) => ours[b]!.logprobs.slice(1).map((x, i) => Math.abs(x - ref.logprobs[b * T + i]!)));
          return { max: Math.max(...d), mean: d.reduce((a, b) => a + b, 0) / d.length };
        };
        const lp = await lpDiff(full, refFull!);
        const lpLora = await lpDiff(lora, refLora!);
        const lpVs32 = await lpDiff(full, ref32!);
        const gf = (await full.gradients(seqs, GRPO)).grads;
        const gl = (await lora.gradients(seqs, GRPO)).grads;
        const gFull = relL1(gf, refFull!.grads);
        const gLora = relL1(gl, refLora!.grads);
        const gVs32 = relL1(gf, ref32!.grads);
        console.log(
          `${precision}: logprobs vs torch (same rounding) max ${lp.max.toExponential(1)} mean ${lp.mean.toExponential(1)}, LoRA max ${lpLora.max.toExponential(1)}; vs torch float32 mean ${lpVs32.mean.toExponential(1)} | gradients (relative L1) vs torch (same rounding) full ${gFull.toExponential(1)} LoRA ${gLora.toExponential(1)}, vs float32 ${gVs32.toExponential(1)}`,
        );
        // Rounding flips (a sum landing near a half-way point, summed in another order) make
        // fp16 differ now and then; bf16's coarser grid almost never flips in the forward.
        if (precision === 'bf16') expect(Math.max(lp.max, lpLora.max)).toBeLessThan(1e-5);
        expect(lp.max).toBeLessThan(2e-3);
        expect(lp.mean, 'logprobs: much closer to the same rounding than to float32').toBeLessThan(lpVs32.mean / 10);
        expect(gFull).toBeLessThan(5e-3);
        expect(gLora).toBeLessThan(1e-2);
        expect(gFull, 'gradients: closer to the same rounding than to float32').toBeLessThan(gVs32 / 2);
        const before = full.trainableWeights().get('model.layers.0.mlp.up_proj.weight')!.slice();
        const r = await full.trainStep(seqs, GRPO, { microBatchSize: 2 });
        const rl = await lora.trainStep(seqs, GRPO, { microBatchSize: 2 });
        for (const [x, ref] of [
          [r, refFull!],
          [rl, refLora!],
        ] as const) {
          expect(x.skipped).toBe(false);
          expect(x.matmuls).toBe(`${precision}-emulated`);
          expect(x.lossScale).toBe(precision === 'fp16' ? scale : undefined);
          expect(Math.abs(x.gradNorm - ref.grad_norm!) / ref.grad_norm!).toBeLessThan(3e-3);
        }
        // master weights: float32 tensors holding values no half type can represent
        const after = full.trainableWeights().get('model.layers.0.mlp.up_proj.weight')!;
        expect(after).toBeInstanceOf(Float32Array);
        const r16 = round[precision === 'fp16' ? 'float16' : 'bfloat16'];
        expect(Array.from(after).filter((x) => r16(x) !== x).length).toBeGreaterThan(after.length / 2);
        expect(maxAbsDiff(before, after)).toBeGreaterThan(1e-3);
      } finally {
        await full.release();
        await lora.release();
        await fp32.release();
      }
    }, 120_000);
  });

  it('fp16 loss scaling: without it small gradients flush to zero; an overflowing step is skipped and the scale halves', async () => {
    const t = await HfTrainer.load(dir, { optim: OPTIM }, { ...SESSION, precision: 'fp16' });
    const fp32 = await HfTrainer.load(dir, { optim: OPTIM }, SESSION);
    try {
      // small advantages, no KL or entropy terms: gradients around float16's smallest values
      const seqs = (await offPolicyBatch(fp32)).map((q) => ({ ...q, advantages: (q.advantages as number) * 1e-4 }));
      const loss: LossConfigInput = { ...GRPO, klCoef: 0, entropyCoef: 0 };
      const want = (await fp32.gradients(seqs, loss)).grads;
      const lost = async (scale: number) => {
        t.lossScaling = { scale, goodSteps: 0 };
        const { grads } = await t.gradients(seqs, loss);
        let flushed = 0;
        let n = 0;
        for (const [k, g] of grads)
          g.forEach((x, i) => {
            if (want.get(k)![i] !== 0) n++;
            if (x === 0 && want.get(k)![i] !== 0) flushed++;
          });
        return { flushed: flushed / n, rel: relL1(grads, Object.fromEntries([...want].map(([k, v]) => [k, Array.from(v)]))) };
      };
      const unscaled = await lost(1);
      const scaled = await lost(2 ** 16);
      console.log(
        `fp16 gradients flushed to zero: ${(unscaled.flushed * 100).toFixed(1)}% unscaled, ${(scaled.flushed * 100).toFixed(1)}% at 2^16; relative L1 error ${unscaled.rel.toExponential(1)} vs ${scaled.rel.toExponential(1)}`,
      );
      expect(unscaled.flushed).toBeGreaterThan(0.05);
      expect(scaled.flushed).toBeLessThan(unscaled.flushed / 5);
      expect(scaled.rel).toBeLessThan(unscaled.rel / 2);

      // 2^40 overflows float16 in backward: the step is skipped, nothing moves, the scale halves
      t.lossScaling = { scale: 2 ** 40, goodSteps: 7 };
      const before = new Map([...t.trainableWeights()].map(([k, v]) => [k, v.slice()]));
      const r = await t.trainStep(seqs, loss);
      expect(r.skipped).toBe(true);
      expect(r.lossScale).toBe(2 ** 40);
      expect(t.lossScaling).toEqual({ scale: 2 ** 39, goodSteps: 0 });
      expect(t.step).toBe(0);
      for (const [k, v] of t.trainableWeights()) expect(v, k).toEqual(before.get(k));
      // at 2^16 the same step goes through and counts towards growing the scale
      t.lossScaling = { scale: 2 ** 16, goodSteps: 0 };
      const ok = await t.trainStep(seqs, loss);
      expect(ok.skipped).toBe(false);
      expect(t.lossScaling).toEqual({ scale: 2 ** 16, goodSteps: 1 });
      expect(t.step).toBe(1);
    } finally {
      await t.release();
      await fp32.release();
    }
  }, 120_000);
});
