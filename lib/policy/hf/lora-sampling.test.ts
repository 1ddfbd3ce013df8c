import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORIES260K_DIR } from '@/test/models';
import type { Provider } from '../onnx-session';
import { exportHfDirectory } from './export-hf';
import { HfPolicy, type HfCompletion } from './hf-policy';
import { HfTrainer } from './hf-trainer';
import { loraSpecs, type LoraConfig } from './lora';
import { loraConfigOf, readPeftAdapter } from './lora-adapter';

// The link from LoRA training to sampling and export, on the real stories260K checkpoint:
// a few SFT steps train an adapter, the sampling policy merges it into the weights it feeds
// (W + B·A·alpha/r) and must then give the trainer's own logprobs (the trainer adds the
// low-rank term unmerged, so the two paths agree only if the merge is right). The adapter
// then goes through PEFT files and a merged Hugging Face export, and must come back exact.

const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] };
const SESSION = { providers: ['cpu'] as Provider[], threads: 1 };
const TEXTS = [
  'Once upon a time, there was a big red ball. The ball liked to bounce high in the sky.',
  'Tom had a small boat. He played with the boat in the water every day.',
];
const PROMPTS = ['Once upon a time', 'Tom had a'];
/** float32 tolerance for the merged (sampling) vs unmerged (training) forward */
const TOL = 1e-4;

let tmp: string;
let policy: HfPolicy;
let trainer: HfTrainer;
let prompts: number[][];
let baseGreedy: HfCompletion[];

/** log softmax of each [V] row of row-major logits */
function logSoftmaxRows(logits: Float32Array, V: number): Float64Array {
  const out = new Float64Array(logits.length);
  for (let r = 0; r < logits.length / V; r++) {
    const row = logits.subarray(r * V, (r + 1) * V);
    const max = Math.max(...row);
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    for (let i = 0; i < V; i++) out[r * V + i] = row[i]! - max - Math.log(sum);
  }
  return out;
}

/** The policy's logprob of each token given the ones before it (entry 0 is 0, as `score` gives). */
async function policyLogprobs(p: HfPolicy, tokens: number[]): Promise<number[]> {
  const V = p.config.vocabSize;
  const lp = logSoftmaxRows(await p.logits(tokens), V);
  return tokens.map((t, i) => (i === 0 ? 0 : lp[(i - 1) * V + t]!));
}

const maxAbs = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-lora-'));
  policy = await HfPolicy.load(STORIES260K_DIR, SESSION);
  prompts = PROMPTS.map((p) => policy.tokenizer.encode(p));
  baseGreedy = await policy.sample(prompts, { temperature: 0, maxNewTokens: 24 });
  // Shares the policy's base tensors: one copy of the base for sampling and training.
  trainer = HfTrainer.fromModel(policy.model, { lora: LORA, optim: { lr: 1e-2, weightDecay: 0, totalSteps: 4 }, seed: 7 }, SESSION, policy.params);
  const seqs = TEXTS.map((t) => {
    const tokens = policy.tokenizer.encode(t);
    return { tokens, lossMask: tokens.map((_, i) => (i ? 1 : 0)) };
  });
  for (let i = 0; i < 4; i++) expect((await trainer.trainStep(seqs, { kind: 'sft' })).skipped).toBe(false);
  policy.setAdapter(trainer.adapter(), { version: trainer.step });
}, 120_000);

afterAll(async () => {
  await policy?.release();
  await trainer?.release();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('sampling with a LoRA adapter', () => {
  it('gives the trainer’s logprobs with the adapter merged, and greedy text that differs from the base', async () => {
    const maxB = Math.max(...[...trainer.adapter().tensors].filter(([n]) => n.includes('lora_B')).map(([, t]) => Math.max(...t.data.map(Math.abs))));
    expect(maxB).toBeGreaterThan(1e-3);

    // Sampled tokens' logprobs (KV cache, left-padded batch) against the trainer's score.
    const sampled = await policy.sample(prompts, { temperature: 1, seed: 3, maxNewTokens: 24 });
    const scored = await trainer.score(sampled.map((c) => [...c.promptTokens, ...c.tokens]));
    const sampleDiff = Math.max(...sampled.map((c, i) => maxAbs(c.logprobs, scored[i]!.logprobs.slice(c.promptTokens.length))));
    expect(sampleDiff).toBeLessThan(TOL);

    // Every position of a whole sequence, and the base model is far from it (the check has teeth).
    const seq = [...sampled[0]!.promptTokens, ...sampled[0]!.tokens];
    const trained = scored[0]!.logprobs;
    const adapted = await policyLogprobs(policy, seq);
    const version = policy.adapter;
    policy.setAdapter(undefined);
    const base = await policyLogprobs(policy, seq);
    const baseAgain = await policy.sample(prompts, { temperature: 0, maxNewTokens: 24 });
    policy.setAdapter(trainer.adapter(), { version: trainer.step });
    expect(maxAbs(adapted, trained)).toBeLessThan(TOL);
    expect(maxAbs(base, trained)).toBeGreaterThan(0.05);
    expect(baseAgain.map((c) => c.tokens)).toEqual(baseGreedy.map((c) => c.tokens));
    console.log(
      `LoRA sampling vs trainer score: sampled logprobs max |Δ| ${sampleDiff.toExponential(2)}, whole sequence ${maxAbs(adapted, trained).toExponential(2)}; base vs trained ${maxAbs(base, trained).toFixed(3)}`,
    );

    const greedy = await policy.sample(prompts, { temperature: 0, maxNewTokens: 24 });
    expect(greedy.map((c) => c.tokens)).not.toEqual(baseGreedy.map((c) => c.tokens));
    console.log(`greedy base:    ${JSON.stringify(baseGreedy.map((c) => c.text))}\ngreedy adapted: ${JSON.stringify(greedy.map((c) => c.text))}`);

    // The base is held once and untouched; the merge costs one copy of each adapted weight.
    for (const [n, w] of policy.model.weights) expect(policy.params[n]!.data, n).toBe(w);
    const adaptedBytes = loraSpecs(policy.config, LORA)
      .filter((s) => s.factor === 'A')
      .reduce((b, s) => b + policy.model.weights.get(s.base)!.byteLength, 0);
    expect(policy.adapter).toEqual({ version: trainer.step, weights: 35, bytes: adaptedBytes });
    expect(version).toEqual(policy.adapter);
    const applied = policy.adapter;
    policy.setAdapter(trainer.adapter(), { version: trainer.step }); // same version: no second merge
    expect(policy.adapter).toBe(applied);
  });

  it('saves the adapter as PEFT files and loads it back with identical logprobs', async () => {
    const dir = path.join(tmp, 'adapter');
    const r = await trainer.saveAdapter(dir, { baseModelNameOrPath: 'stories260K-hf' });
    expect(r.files.map((f) => f.path)).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    expect(r.tensors).toBe(70);
    const read = await readPeftAdapter(dir, policy.config);
    expect(loraConfigOf(read.config)).toEqual(LORA);
    for (const [n, t] of trainer.adapter().tensors) expect(read.tensors.get(n), n).toEqual(t);

    const seqs = [[...prompts[0]!, 260, 300, 270, 280], prompts[1]!];
    const want = await trainer.score(seqs);
    for (const from of [dir, path.join(dir, 'adapter_model.safetensors')]) {
      const fresh = HfTrainer.fromModel(policy.model, { lora: loraConfigOf(read.config), seed: 99 }, SESSION, policy.params);
      try {
        const before = await fresh.score(seqs);
        expect(maxAbs(before[0]!.logprobs, want[0]!.logprobs)).toBeGreaterThan(0.05);
        await fresh.loadAdapter(from);
        expect(await fresh.score(seqs)).toEqual(want);
        expect(fresh.step).toBe(0);
      } finally {
        await fresh.release();
      }
    }

    const other = HfTrainer.fromModel(policy.model, { lora: { ...LORA, rank: 2 } }, SESSION, policy.params);
    await expect(other.loadAdapter(dir)).rejects.toThrow(/r=4, lora_alpha=8.*rank=2/);
    await other.release();
    const config = JSON.parse(await fs.readFile(path.join(dir, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
    const dora = path.join(tmp, 'dora');
    await fs.mkdir(dora);
    await fs.copyFile(path.join(dir, 'adapter_model.safetensors'), path.join(dora, 'adapter_model.safetensors'));
    await fs.writeFile(path.join(dora, 'adapter_config.json'), JSON.stringify({ ...config, use_dora: true }));
    await expect(readPeftAdapter(dora)).rejects.toThrow(/use_dora: DoRA is not supported/);
  });

  it('a merged Hugging Face export re-imports with the adapted policy’s logits', async () => {
    const out = path.join(tmp, 'merged');
    await exportHfDirectory({ from: STORIES260K_DIR, out, weights: trainer.exportWeights() });
    const reloaded = await HfPolicy.load(out, SESSION);
    try {
      const seq = [...prompts[0]!, ...baseGreedy[0]!.tokens];
      const adapted = await policy.logits(seq);
      expect(await reloaded.logits(seq)).toEqual(adapted);
      policy.setAdapter(undefined);
      const base = await policy.logits(seq);
      policy.setAdapter(trainer.adapter(), { version: trainer.step });
      expect(base).not.toEqual(adapted);
    } finally {
      await reloaded.release();
    }
  });
});
