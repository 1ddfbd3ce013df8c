import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STORIES260K_DIR } from '@/test/models';
import { HfRlPolicy } from './hf-rl-policy';

const MODEL = STORIES260K_DIR;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-hf-rl-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const optim = { lr: 1e-2, warmupSteps: 0, totalSteps: 10, minLrRatio: 1 };
const maxDiff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

/** One GRPO-style step on sampled continuations with made-up advantages: something to move the weights. */
async function trainOnce(p: HfRlPolicy) {
  const prompt = p.encodePrompt('Lily had a red ball.');
  const outs = await p.sample([prompt, prompt], { maxNewTokens: 12, temperature: 1, seed: 3 });
  const seqs = outs.map((o, i) => {
    const tokens = [...o.promptTokens, ...o.tokens];
    const mask = tokens.map((_, j) => (j >= o.promptTokens.length ? 1 : 0));
    return { tokens, lossMask: mask, oldLogprobs: [...o.promptTokens.map(() => 0), ...o.logprobs], advantages: tokens.map(() => (i === 0 ? 1 : -1)) };
  });
  const r = await p.trainStep(seqs, { kind: 'grpo' });
  expect(r.skipped).toBe(false);
  return seqs;
}

describe.each(['full', 'lora'] as const)('a Hugging Face model as the RL policy (%s training, stories260K)', (training) => {
  const spec = training === 'full' ? { training } : { training, lora: { rank: 4, alpha: 8, targetModules: ['q_proj' as const, 'v_proj' as const] } };

  it('samples with the weights it trained, and a saved checkpoint reloads to the same policy', async () => {
    const p = await HfRlPolicy.create(MODEL, { training: spec, optim, seed: 1, base: 'base-a' });
    expect(p.newlineIds()).toEqual([13]); // stories260K's <0x0A>
    const prompt = p.encodePrompt('Tim found a box.');
    expect(prompt[0]).toBe(1); // BOS, as the tokenizer adds it
    const before = (await p.sample([prompt], { maxNewTokens: 16, temperature: 0, seed: 0 }))[0]!;
    const seqs = await trainOnce(p);
    expect(p.step).toBe(1);
    // the sampler now uses the trained weights: the logprobs it reports are the trainer's
    const after = (await p.sample([prompt], { maxNewTokens: 16, temperature: 1, seed: 5 }))[0]!;
    const scored = (await p.score([[...after.promptTokens, ...after.tokens]]))[0]!;
    expect(maxDiff(after.logprobs, scored.logprobs.slice(after.promptTokens.length))).toBeLessThan(1e-4);
    const base = (await p.score([[...before.promptTokens, ...before.tokens]], { params: {} }))[0]!;
    expect(base.logprobs.length).toBe(before.promptTokens.length + before.tokens.length);

    const file = path.join(tmp, `${training}.safetensors`);
    const saved = await p.save(file);
    const again = await p.save(path.join(tmp, `${training}-again.safetensors`));
    expect(again.sha256).toBe(saved.sha256); // deterministic bytes
    const q = await HfRlPolicy.load(MODEL, file, { base: 'base-a' });
    expect(q.step).toBe(1);
    expect(q.optim.lr).toBe(optim.lr);
    const [a, b] = [await p.score(seqs.map((s) => s.tokens)), await q.score(seqs.map((s) => s.tokens))];
    for (let i = 0; i < a.length; i++) expect(maxDiff(a[i]!.logprobs, b[i]!.logprobs)).toBe(0);
    // and it trains on from there exactly as the original does (moments restored)
    await trainOnce(p);
    await trainOnce(q);
    const [c, d] = [await p.score(seqs.map((s) => s.tokens)), await q.score(seqs.map((s) => s.tokens))];
    for (let i = 0; i < c.length; i++) expect(maxDiff(c[i]!.logprobs, d[i]!.logprobs)).toBeLessThan(1e-6);
    // v1's weights as score feeds of a policy trained further (the reference, for the KL) score as v1 itself does
    const asV1 = await p.score(
      seqs.map((s) => s.tokens),
      { params: await p.versionParams(file) },
    );
    for (let i = 0; i < a.length; i++) expect(maxDiff(asV1[i]!.logprobs, a[i]!.logprobs)).toBeLessThan(1e-6);
    await expect(HfRlPolicy.load(MODEL, file, { base: 'base-b' })).rejects.toThrow(/trained on base model base-a.*not base-b/);
    if (training === 'lora') expect(fs.statSync(file).size).toBeLessThan(100_000); // the adapter and its moments, not the model
    await Promise.all([p.release(), q.release()]);
  });
});

describe('mixed precision (stories260K)', () => {
  it('fp16: steps report the emulated products and the loss scale; a checkpoint carries the scaling state', async () => {
    const spec = { training: 'lora' as const, lora: { rank: 4, alpha: 8, targetModules: ['q_proj' as const, 'v_proj' as const] } };
    const p = await HfRlPolicy.create(MODEL, { training: spec, optim, seed: 1, base: 'base-a' }, { precision: 'fp16' });
    p.trainer.lossScaling = { scale: 1024, goodSteps: 3 };
    await trainOnce(p);
    expect(p.trainer.lossScaling).toEqual({ scale: 1024, goodSteps: 4 });
    const file = path.join(tmp, 'fp16.safetensors');
    await p.save(file);
    const q = await HfRlPolicy.load(MODEL, file, { base: 'base-a' }, { precision: 'fp16' });
    expect(q.trainer.lossScaling).toEqual({ scale: 1024, goodSteps: 4 });
    expect(q.trainer.matmuls).toBe('fp16-emulated');
    await Promise.all([p.release(), q.release()]);
  });

  it.each(['fp16', 'bf16'] as const)('%s LoRA: the sampler (adapter merged) reports the logprobs the trainer computes', async (precision) => {
    const spec = { training: 'lora' as const, lora: { rank: 4, alpha: 8, targetModules: ['q_proj' as const, 'v_proj' as const] } };
    const p = await HfRlPolicy.create(MODEL, { training: spec, optim, seed: 1, base: 'base-a' }, { precision });
    await trainOnce(p);
    await trainOnce(p); // B is no longer zero
    const prompt = p.encodePrompt('Tim found a box.');
    const diffs: number[] = [];
    for (const seed of [5, 6, 7]) {
      const out = (await p.sample([prompt], { maxNewTokens: 16, temperature: 1, seed }))[0]!;
      const scored = (await p.score([[...out.promptTokens, ...out.tokens]]))[0]!.logprobs.slice(out.promptTokens.length);
      diffs.push(...out.logprobs.map((x, i) => Math.abs(x - scored[i]!)));
    }
    // The trainer multiplies by the merged weight too (lora.ts), so they agree but for rounding
    // flips: the cached K/V of one decode step rounding the other way from the full sequence's
    // (measured once, bf16: 2 of 3 samples agreed within 2e-7 at every token). With the merge removed
    // from training the bf16 mean was 1.8e-2, failing this test.
    const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    console.log(`${precision} LoRA: sampler vs trainer logprobs, mean ${mean.toExponential(1)}, max ${Math.max(...diffs).toExponential(1)}`);
    expect(mean).toBeLessThan(5e-3);
    expect(Math.max(...diffs)).toBeLessThan(0.1);
    await p.release();
  });
});

describe('PPO on a Hugging Face model: the value head (stories260K)', () => {
  it('under full fine-tuning samples with the trained weights, the value head left to the trainer', async () => {
    const p = await HfRlPolicy.create(MODEL, { training: { training: 'full', valueHead: true }, optim, seed: 1, base: 'b' });
    await trainOnce(p);
    const [c] = await p.sample([p.encodePrompt('Sue had a cat.')], { maxNewTokens: 8, temperature: 1, seed: 2 });
    const scored = (await p.score([[...c!.promptTokens, ...c!.tokens]]))[0]!;
    expect(maxDiff(c!.logprobs, scored.logprobs.slice(c!.promptTokens.length))).toBeLessThan(1e-4);
    await p.release();
  });

  it("scores values, and the value loss's gradient on the head matches finite differences", async () => {
    const p = await HfRlPolicy.create(MODEL, {
      training: { training: 'lora', lora: { rank: 2, alpha: 4, targetModules: ['q_proj'] }, valueHead: true },
      optim,
      seed: 1,
      base: 'b',
    });
    const tokens = p.encodePrompt('Tim had a big red kite. He ran with it.');
    const n = tokens.length;
    // a value head trained a little, so values and their gradient are not trivially 0
    const head = new Float32Array(64).map((_, i) => Math.sin(i) * 0.1);
    p.trainer.setTrainable(
      new Map([
        ['v_head.summary.weight', head],
        ['v_head.summary.bias', Float32Array.of(0.05)],
      ]),
    );
    const scored = (await p.score([tokens]))[0]!;
    expect(scored.values).toHaveLength(n);
    expect(new Set(scored.values!.slice(1)).size).toBeGreaterThan(1); // one estimate per position
    const seq = {
      tokens,
      lossMask: tokens.map((_, i) => (i >= 4 ? 1 : 0)),
      oldLogprobs: scored.logprobs,
      advantages: tokens.map(() => 0.3),
      returns: tokens.map((_, i) => (i % 3) - 1),
      oldValues: scored.values!,
    };
    const loss = { kind: 'ppo' as const, valueClip: 100 };
    const { grads, metrics } = await p.trainer.gradients([seq], loss);
    expect(metrics.valueLoss).toBeGreaterThan(0);
    const g = grads.get('v_head.summary.weight')!;
    expect(Math.max(...g.map(Math.abs))).toBeGreaterThan(1e-3); // the value loss reaches the head
    const lossAt = async (j: number, d: number) => {
      const w = Float32Array.from(head);
      w[j] = w[j]! + d;
      p.trainer.setTrainable(new Map([['v_head.summary.weight', w]]));
      return (await p.trainer.gradients([seq], loss)).metrics.loss;
    };
    for (const j of [0, 17, 63]) {
      const eps = 1e-2;
      const fd = ((await lossAt(j, eps)) - (await lossAt(j, -eps))) / (2 * eps);
      expect(Math.abs(fd - g[j]!)).toBeLessThan(2e-3 + 2e-2 * Math.abs(g[j]!));
    }
    await p.release();
  });
});
