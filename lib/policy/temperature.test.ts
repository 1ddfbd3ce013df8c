import { describe, expect, it } from 'vitest';
import { Policy } from './policy';
import { temperedLogprob } from './sample';

const cpu = { providers: ['cpu' as const], threads: 1 };
// initStd 0.3 makes the untrained policy peaked enough that temperature matters (at the
// default 0.02 every distribution is near-uniform and T hardly changes a logprob).
const make = () => Policy.create({ model: { dModel: 32, nLayers: 1, nHeads: 2, dMlp: 64, maxSeqLen: 32, initStd: 0.3 }, seed: 3, optim: { lr: 1e-3 } }, cpu);

describe('logprobs of the distribution a token was sampled from', () => {
  it('temperedLogprob is log softmax(logits / T) of the row', () => {
    const logits = [2, 0.5, -1, 0.1];
    const lse = (xs: number[]) => Math.log(xs.reduce((a, x) => a + Math.exp(x), 0));
    const row = Float32Array.from(logits.map((l) => l - lse(logits)));
    const t = 0.7;
    const scaled = logits.map((l) => l / t);
    expect(temperedLogprob(row, 2, t)).toBeCloseTo(scaled[2]! - lse(scaled), 6);
    expect(temperedLogprob(row, 2, 1)).toBe(row[2]);
  });

  it('at T = 0.7 the stored sampling logprobs equal the training graph recomputed at T = 0.7, and differ from raw T = 1', async () => {
    const p = make();
    const T = 0.7;
    const comps = await p.sample(
      Array.from({ length: 8 }, () => 'ab'),
      { maxNewTokens: 12, temperature: T, seed: 5 },
    );
    const seqs = comps.map((c) => ({
      tokens: [...c.promptTokens, ...c.tokens],
      lossMask: [...c.promptTokens.map(() => 0), ...c.tokens.map(() => 1)],
      oldLogprobs: [...c.promptTokens.map(() => 0), ...c.logprobs],
      advantages: 1,
    }));
    // token by token against the score graph (the same tempered log-softmax as training)
    const atT = await p.score(
      seqs.map((s) => s.tokens),
      { temperature: T },
    );
    const at1 = await p.score(seqs.map((s) => s.tokens));
    let worst = 0;
    let rawGap = 0;
    let n = 0;
    seqs.forEach((s, i) =>
      s.lossMask.forEach((m, t) => {
        if (!m) return;
        worst = Math.max(worst, Math.abs(s.oldLogprobs[t]! - atT[i]!.logprobs[t]!));
        rawGap += Math.abs(s.oldLogprobs[t]! - at1[i]!.logprobs[t]!);
        n++;
      }),
    );
    console.log(`T=${T}: max |stored - recomputed(T)| = ${worst.toExponential(2)}; mean |stored - raw T=1| = ${(rawGap / n).toFixed(3)} nats over ${n} tokens`);
    expect(worst).toBeLessThan(1e-4);
    expect(rawGap / n).toBeGreaterThan(0.05);

    // the training graph itself: on the weights that sampled, the log-ratio is 0 at T = 0.7 ...
    const state = p.state();
    const r = await p.trainStep(seqs, { kind: 'grpo', temperature: T });
    expect(r.logRatioAbs).toBeLessThan(1e-5);
    expect(r.clipFraction).toBe(0);
    // ... and what the raw (T = 1) loss used to see: a ratio that is off from the first step
    const raw = Policy.fromState(state, cpu);
    const r1 = await raw.trainStep(seqs, { kind: 'grpo' });
    expect(r1.logRatioAbs).toBeGreaterThan(0.05);
    await p.release();
    await raw.release();
  });

  it('reference logprobs scored at the run temperature give zero KL for the sampling weights', async () => {
    const p = make();
    const comps = await p.sample(['xy', 'zz'], { maxNewTokens: 10, temperature: 0.5, seed: 1 });
    const tokens = comps.map((c) => [...c.promptTokens, ...c.tokens]);
    const ref = await p.score(tokens, { temperature: 0.5 });
    const r = await p.trainStep(
      comps.map((c, i) => ({
        tokens: tokens[i]!,
        lossMask: [...c.promptTokens.map(() => 0), ...c.tokens.map(() => 1)],
        oldLogprobs: [...c.promptTokens.map(() => 0), ...c.logprobs],
        refLogprobs: ref[i]!.logprobs,
        advantages: i ? -1 : 1,
      })),
      { kind: 'grpo', temperature: 0.5, klCoef: 0.1 },
    );
    expect(Math.abs(r.kl)).toBeLessThan(1e-6);
    await p.release();
  });
});
