import { describe, expect, it } from 'vitest';
import type { TrainSequence } from './batch';
import { Policy } from './policy';

const cpu = { providers: ['cpu' as const], threads: 1 };
const make = () => Policy.create({ model: { dModel: 32, nLayers: 1, nHeads: 2, dMlp: 64, maxSeqLen: 32 }, seed: 4, optim: { lr: 1e-2, weightDecay: 0 } }, cpu);

const copyOf = (p: Policy) => new Map([...p.state().tensors].map(([k, t]) => [k, Float32Array.from(t.data)]));
const allFinite = (p: Policy) => [...p.weights().values()].every((a) => a.every(Number.isFinite));
const unchanged = (before: Map<string, Float32Array>, p: Policy) =>
  [...p.state().tensors].every(([k, t]) => t.data.every((x, i) => Object.is(x, before.get(k)![i])));

/** On-policy sequences (old logprobs scored from these weights), half positive, half negative advantages. */
async function onPolicy(p: Policy): Promise<TrainSequence[]> {
  const tokens = ['p:aaaa', 'p:bbbbb', 'p:cc', 'p:dddd'].map((s) => p.tokenizer.encode(s, { bos: true }));
  const scored = await p.score(tokens);
  return tokens.map((t, i) => ({
    tokens: t,
    lossMask: t.map((_, k) => (k >= 3 ? 1 : 0)),
    advantages: i % 2 ? -1 : 1,
    oldLogprobs: scored[i]!.logprobs,
    refLogprobs: scored[i]!.logprobs,
  }));
}

describe('numerical guards of the training step', () => {
  it('a log-ratio far above exp overflow (old logprobs 150 nats too low) is clamped: finite loss, the update is applied', async () => {
    const p = make();
    // log π − log π_old ≈ +150 on the tokens of the first two sequences (exp(150) is Infinity
    // in float32); the other two stay on-policy, so there is a gradient to apply
    const seqs = (await onPolicy(p)).map((s, i) => (i < 2 ? { ...s, oldLogprobs: s.oldLogprobs!.map((x) => x - 150) } : s));
    const before = copyOf(p);
    const r = await p.trainStep(seqs, { kind: 'grpo' });
    expect(r.skipped).toBe(false);
    expect(Number.isFinite(r.loss) && Number.isFinite(r.gradNorm)).toBe(true);
    expect(allFinite(p)).toBe(true);
    expect(unchanged(before, p)).toBe(false);
    // the negative-advantage tokens (ratio e^20 after the clamp) are capped by the dual clip at c·|A| = 3
    expect(r.dualClipFraction).toBeGreaterThan(0.2);
    await p.release();
  });

  it('a KL log-ratio far beyond overflow (reference 150 nats above) is clamped: finite loss, the update is applied', async () => {
    const p = make();
    const seqs = (await onPolicy(p)).map((s) => ({ ...s, refLogprobs: s.refLogprobs!.map((x) => x + 150) }));
    const r = await p.trainStep(seqs, { kind: 'grpo', klCoef: 0.1 });
    expect(r.skipped).toBe(false);
    expect(Number.isFinite(r.kl) && Number.isFinite(r.loss)).toBe(true);
    expect(r.kl).toBeCloseTo(10, 4); // k3 clamped at KL_CLAMP
    expect(allFinite(p)).toBe(true);
    await p.release();
  });

  it('a non-finite loss skips the update: weights, moments and step unchanged, the loss reported as non-finite (not 0)', async () => {
    const p = make();
    const seqs = await onPolicy(p);
    const now = await p.score(seqs.map((s) => s.tokens));
    // returns of 1e30: (V − R)² overflows float32, so the value loss is Infinity
    const ppo = seqs.map((s, i) => ({ ...s, oldValues: now[i]!.values, returns: s.tokens.map(() => 1e30) }));
    const before = copyOf(p);
    const step = p.step;
    const r = await p.trainStep(ppo, { kind: 'ppo' });
    expect(r.skipped).toBe(true);
    expect(Number.isFinite(r.loss)).toBe(false);
    expect(Number.isFinite(r.gradNorm)).toBe(false);
    expect(p.step).toBe(step);
    expect(r.step).toBe(step);
    expect(unchanged(before, p)).toBe(true);
    // and the next, sane step trains from the kept weights
    const ok = await p.trainStep(seqs, { kind: 'grpo' });
    expect(ok.skipped).toBe(false);
    expect(allFinite(p)).toBe(true);
    expect(p.step).toBe(step + 1);
    await p.release();
  });

  it('a finite loss with a non-finite gradient norm also skips the update', async () => {
    const p = make();
    // advantages of 1e37: the loss (~1e37) is finite, the squared gradient norm overflows
    const seqs = (await onPolicy(p)).map((s, i) => ({ ...s, advantages: i % 2 ? -1e37 : 1e37 }));
    const before = copyOf(p);
    const r = await p.trainStep(seqs, { kind: 'grpo' });
    expect(Number.isFinite(r.loss)).toBe(true);
    expect(Number.isFinite(r.gradNorm)).toBe(false);
    expect(r.skipped).toBe(true);
    expect(unchanged(before, p)).toBe(true);
    await p.release();
  });
});
