import { describe, expect, it } from 'vitest';
import { buildLoss, LossConfig } from './losses';
import { forward, ModelConfig, paramSpecs } from './model';
import { gradCheck, type CheckInput } from './onnx/gradcheck';
import { typedArray, type Value } from './onnx/graph';
import * as o from './onnx/ops';
import { Policy } from './policy';
import { causalMask } from './batch';

const tiny = ModelConfig.parse({ vocabSize: 259, dModel: 8, nLayers: 2, nHeads: 2, dMlp: 16, maxSeqLen: 16 });

describe('whole model + loss gradients match finite differences (float32)', () => {
  const B = 2;
  const T = 5;
  const ints = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
  const cases: [string, unknown][] = [
    ['sft', { kind: 'sft' }],
    ['grpo', { kind: 'grpo', klCoef: 0.1, entropyCoef: 0.01 }],
    ['ppo', { kind: 'ppo', klCoef: 0.1, entropyCoef: 0.01 }],
    // tempered logits and another KL estimator put more ops on the path to the weights
    ['grpo at temperature 0.7 with the k2 KL', { kind: 'grpo', klCoef: 0.1, klEstimator: 'k2', entropyCoef: 0.01, temperature: 0.7 }],
  ];
  for (const [name, lossConfig] of cases) {
    it(name, async () => {
      const inputs: Record<string, CheckInput> = {};
      for (const s of paramSpecs(tiny)) inputs[s.name] = { shape: s.shape };
      inputs.tokens = { shape: [B, T], int: ints(B * T, (i) => (i * 37 + 11) % 259) };
      inputs.targets = { shape: [B, T], int: ints(B * T, (i) => (i * 53 + 5) % 259) };
      inputs.positions = { shape: [B, T], int: ints(B * T, (i) => i % T) };
      const cfg = LossConfig.parse(lossConfig);
      const build = (v: Record<string, Value>) => {
        const g = v.tokens!.graph;
        const c = (xs: number[]) => g.constant({ dtype: 'float32', shape: [B, T], data: typedArray('float32', xs) });
        // Random inputs are in +-[0.2, 1.2]; scale weights to a trained-like range.
        const p: Record<string, Value> = {};
        for (const s of paramSpecs(tiny)) p[s.name] = o.mul(v[s.name]!, s.init === 'ones' ? 1 : 0.3);
        const mask = g.constant({ dtype: 'float32', shape: [B, 1, T, T], data: causalMask(B, T).data as Float32Array });
        const out = forward(g, tiny, p, { tokens: v.tokens!, positions: v.positions!, attnMask: mask });
        const lm = ints(B * T, (i) => (i % T === 0 ? 0 : 1));
        const { loss } = buildLoss(g, cfg, out.logits, out.values, {
          targets: v.targets!,
          mask: c(lm),
          weights: c(lm.map((m) => m / 8)),
          advantages: c(ints(B * T, (i) => (i % 3) - 0.7)),
          oldLogprobs: c(ints(B * T, (i) => -5.5 + 0.05 * (i % 4))),
          refLogprobs: c(ints(B * T, (i) => -5.6 + 0.03 * (i % 5))),
          oldValues: c(ints(B * T, (i) => 0.1 * (i % 3))),
          returns: c(ints(B * T, (i) => 0.5 - 0.2 * (i % 2))),
        });
        return loss;
      };
      const r = await gradCheck('float32', inputs, build, { eps: 3e-3, maxElements: 6 });
      expect(r.analyticNorm).toBeGreaterThan(0);
      expect(r.relError).toBeLessThan(2e-2);
    });
  }
});

describe('inference', () => {
  const make = () => Policy.create({ model: { dModel: 32, nLayers: 2, nHeads: 4, dMlp: 64, maxSeqLen: 64 }, seed: 3 }, { providers: ['cpu'], threads: 1 });

  it('KV-cache decoding gives the same tokens and logprobs as full recomputation', async () => {
    const p = make();
    const prompts = ['a', 'hello world', 'xyz'];
    const withCache = await p.sample(prompts, { maxNewTokens: 24, seed: 11, temperature: 1 });
    const without = await p.sample(prompts, { maxNewTokens: 24, seed: 11, temperature: 1, kvCache: false });
    expect(withCache.map((c) => c.tokens)).toEqual(without.map((c) => c.tokens));
    withCache.forEach((c, b) => c.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(without[b]!.logprobs[i]!, 4)));
    expect(withCache[0]!.tokens.length).toBe(24);
    await p.release();
  });

  it('batched rows equal solo runs, replay from the seed, and match the training-side score', async () => {
    const p = make();
    const prompts = ['a', 'hello world'];
    const batched = await p.sample(prompts, { maxNewTokens: 10, seed: 5 });
    const again = await p.sample(prompts, { maxNewTokens: 10, seed: 5 });
    expect(again.map((c) => c.tokens)).toEqual(batched.map((c) => c.tokens));
    const other = await p.sample(prompts, { maxNewTokens: 10, seed: 6 });
    expect(other.map((c) => c.tokens)).not.toEqual(batched.map((c) => c.tokens));
    // Left padding must not change a row: greedy decode solo vs in a batch.
    const greedyBatch = await p.sample(prompts, { maxNewTokens: 10, temperature: 0 });
    const greedySolo = await p.sample([prompts[1]!], { maxNewTokens: 10, temperature: 0 });
    expect(greedyBatch[1]!.tokens).toEqual(greedySolo[0]!.tokens);
    greedySolo[0]!.logprobs.forEach((lp, i) => expect(greedyBatch[1]!.logprobs[i]).toBeCloseTo(lp, 4));
    // The sampler's logprobs are what the training graphs compute for the same tokens.
    const c = batched[1]!;
    const [scored] = await p.score([[...c.promptTokens, ...c.tokens]]);
    const tail = scored!.logprobs.slice(c.promptTokens.length);
    tail.forEach((lp, i) => expect(lp).toBeCloseTo(c.logprobs[i]!, 4));
    scored!.values.slice(c.promptTokens.length).forEach((v, i) => expect(v).toBeCloseTo(c.values[i]!, 4));
    await p.release();
  });

  it('stops at stop sequences and EOS, and reports why', async () => {
    const p = make();
    const free = await p.sample(['q'], { maxNewTokens: 12, temperature: 0 });
    const t = free[0]!.tokens;
    const stopAt = t.slice(2, 4);
    const [stopped] = await p.sample(['q'], { maxNewTokens: 12, temperature: 0, stop: [stopAt] });
    expect(stopped!.finishReason).toBe('stop');
    expect(stopped!.tokens.slice(-2)).toEqual(stopAt);
    expect(stopped!.tokens.length).toBeLessThanOrEqual(4);
    expect(free[0]!.finishReason === 'length' || free[0]!.finishReason === 'eos').toBe(true);
    await p.release();
  });

  it('refuses prompts that do not fit the context', async () => {
    const p = make();
    await expect(p.sample(['x'.repeat(60)], { maxNewTokens: 10 })).rejects.toThrow(/maxSeqLen/);
  });
});
