import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HfRlPolicy } from './hf-rl-policy';

const MODEL = path.resolve('../shared/models/stories260K-hf');
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
    await expect(HfRlPolicy.load(MODEL, file, { base: 'base-b' })).rejects.toThrow(/trained on base model base-a.*not base-b/);
    if (training === 'lora') expect(fs.statSync(file).size).toBeLessThan(100_000); // the adapter and its moments, not the model
    await Promise.all([p.release(), q.release()]);
  });
});
