import { describe, expect, it } from 'vitest';
import { Policy } from './policy';
import type { TrainSequence } from './batch';
import { gae } from './advantages';

const model = { dModel: 32, nLayers: 2, nHeads: 4, dMlp: 64, maxSeqLen: 32 };
const make = (lr = 1e-2) => Policy.create({ model, seed: 9, optim: { lr, weightDecay: 0, warmupSteps: 0, minLrRatio: 1 } }, { providers: ['cpu'], threads: 1 });

const completions = ['aaaa', 'bbbbbb', 'cccc', 'ddd'];
const advantages = [1, 0.5, -1, -0.8];

/** Prompt "p:" + completion; logprobs scored on-policy so the first step has ratio 1. */
async function batch(p: Policy, old?: Policy): Promise<TrainSequence[]> {
  const seqs = completions.map((c) => p.tokenizer.encode(`p:${c}`, { bos: true }));
  const scored = await (old ?? p).score(seqs);
  return seqs.map((tokens, i) => ({
    tokens,
    lossMask: tokens.map((_, t) => (t >= 3 ? 1 : 0)),
    advantages: advantages[i]!,
    oldLogprobs: scored[i]!.logprobs,
    refLogprobs: scored[i]!.logprobs,
  }));
}

const seqLogprob = (s: { logprobs: number[] }, mask: number[]) => s.logprobs.reduce((a, lp, t) => a + lp * mask[t]!, 0);

/** The GRPO metrics recomputed in JS from scored logprobs, to check the graph's maths. */
function expectedMetrics(seqs: TrainSequence[], now: { logprobs: number[] }[], lo: number, hi: number, agg: 'token' | 'sequence') {
  let pg = 0;
  let clipped = 0;
  let kl = 0;
  const total = seqs.reduce((a, s) => a + s.lossMask.reduce((x, y) => x + y, 0), 0);
  seqs.forEach((s, i) => {
    const n = s.lossMask.reduce((x, y) => x + y, 0);
    s.tokens.forEach((_, t) => {
      if (!s.lossMask[t]) return;
      const w = agg === 'token' ? 1 / total : 1 / (n * seqs.length);
      const lp = now[i]!.logprobs[t]!;
      const ratio = Math.exp(lp - s.oldLogprobs![t]!);
      const a = s.advantages as number;
      const clippedLoss = -Math.min(ratio * a, Math.min(Math.max(ratio, 1 - lo), 1 + hi) * a);
      pg += (a < 0 ? Math.min(clippedLoss, -3 * a) : clippedLoss) * w; // dual clip, c = 3 by default
      if (ratio < 1 - lo || ratio > 1 + hi) clipped += w;
      const r = s.refLogprobs![t]! - lp;
      kl += (Math.exp(r) - r - 1) * w;
    });
  });
  return { pg, clipped, kl };
}

describe('GRPO step', () => {
  it('raises positive-advantage sequences, lowers negative ones; on-policy clip fraction and KL are 0', async () => {
    const p = make(3e-3);
    const seqs = await batch(p);
    const before = await p.score(seqs.map((s) => s.tokens));
    const r = await p.trainStep(seqs, { kind: 'grpo', klCoef: 0.05 });
    expect(r.clipFraction).toBe(0);
    expect(Math.abs(r.kl)).toBeLessThan(1e-6);
    // ratio = 1 on-policy, so the surrogate is minus the token-weighted mean advantage.
    const n = seqs.map((s) => s.lossMask.reduce((a, b) => a + b, 0));
    const meanAdv = advantages.reduce((a, adv, i) => a + adv * n[i]!, 0) / n.reduce((a, b) => a + b, 0);
    expect(r.policyLoss).toBeCloseTo(-meanAdv, 5);
    expect(r.tokens).toBe(n.reduce((a, b) => a + b, 0));
    expect(r.provider).toBe('cpu');
    expect(r.gradNorm).toBeGreaterThan(0);
    const after = await p.score(seqs.map((s) => s.tokens));
    seqs.forEach((s, i) => {
      const d = seqLogprob(after[i]!, s.lossMask) - seqLogprob(before[i]!, s.lossMask);
      if (advantages[i]! > 0) expect(d).toBeGreaterThan(0);
      else expect(d).toBeLessThan(0);
    });
    await p.release();
  });

  it('reports clip fraction, surrogate and k3 KL exactly as the clip ratios define them, per aggregation', async () => {
    const p = make(2e-2);
    const seqs = await batch(p);
    for (let i = 0; i < 4; i++) await p.trainStep(seqs, { kind: 'grpo', clipLow: 1e3, clipHigh: 1e3 }); // move off-policy
    const now = await p.score(seqs.map((s) => s.tokens));
    const state = p.state();
    const results: number[] = [];
    for (const [lo, hi, agg] of [
      [0.05, 0.05, 'token'],
      [0.05, 0.4, 'token'],
      [0.3, 0.3, 'sequence'],
      [1e3, 1e3, 'token'],
    ] as const) {
      const q = Policy.fromState(state, { providers: ['cpu'], threads: 1 });
      const r = await q.trainStep(seqs, { kind: 'grpo', clipLow: lo, clipHigh: hi, aggregation: agg });
      const want = expectedMetrics(seqs, now, lo, hi, agg);
      expect(r.clipFraction).toBeCloseTo(want.clipped, 4);
      expect(r.policyLoss).toBeCloseTo(want.pg, 4);
      expect(r.kl).toBeCloseTo(want.kl, 4);
      results.push(r.clipFraction);
      await q.release();
    }
    expect(results[0]).toBeGreaterThan(0); // off-policy tokens leave a narrow clip range
    expect(results[1]).toBeLessThanOrEqual(results[0]!); // a wider upper ratio clips fewer
    expect(results[3]).toBe(0);
    const last = await p.trainStep(seqs, { kind: 'grpo' });
    expect(last.kl).toBeGreaterThan(0); // moved away from the reference
    await p.release();
  });

  it('gradient accumulation over micro-batches equals one batch', async () => {
    const a = make();
    const b = Policy.fromState(a.state(), { providers: ['cpu'], threads: 1 });
    const seqs = await batch(a);
    const ra = await a.trainStep(seqs, { kind: 'grpo', klCoef: 0.1, entropyCoef: 0.01 });
    const rb = await b.trainStep(seqs, { kind: 'grpo', klCoef: 0.1, entropyCoef: 0.01 }, { microBatchSize: 1 });
    expect(rb.microBatches).toBe(4);
    expect(rb.loss).toBeCloseTo(ra.loss, 5);
    expect(rb.gradNorm).toBeCloseTo(ra.gradNorm, 4);
    for (const [name, t] of a.params) {
      const x = t.data as Float32Array;
      const y = b.params.get(name)!.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i]! - y[i]!));
      expect(worst, name).toBeLessThan(1e-5);
    }
    await a.release();
    await b.release();
  });
});

describe('PPO step', () => {
  it('fits the value head to returns with the clipped value loss (zero advantages isolate it)', async () => {
    const p = make(1e-2);
    const seqs = await batch(p);
    const ret = [0.8, 0.2, -0.5, 0.1];
    const lossCurve: number[] = [];
    for (let i = 0; i < 30; i++) {
      const now = await p.score(seqs.map((s) => s.tokens));
      const ppo = seqs.map((s, k) => ({
        ...s,
        advantages: s.tokens.map(() => 0),
        oldLogprobs: now[k]!.logprobs,
        oldValues: now[k]!.values,
        returns: s.tokens.map(() => ret[k]!),
      }));
      const r = await p.trainStep(ppo, { kind: 'ppo', valueCoef: 1, valueClip: 0.5 });
      if (i === 0) {
        // On-policy old values: the clipped and unclipped errors coincide.
        let want = 0;
        const total = seqs.reduce((a, s) => a + s.lossMask.reduce((x, y) => x + y, 0), 0);
        ppo.forEach((s, k) =>
          s.tokens.forEach((_, t) => {
            if (s.lossMask[t]) want += (0.5 * (now[k]!.values[t]! - ret[k]!) ** 2) / total;
          }),
        );
        expect(r.valueLoss).toBeCloseTo(want, 4);
      }
      lossCurve.push(r.valueLoss);
    }
    expect(lossCurve.at(-1)!).toBeLessThan(lossCurve[0]! * 0.5);
    await p.release();
  });

  it('clips the value loss as max((v - R)^2, (old + clip(v - old, +-c) - R)^2) / 2, and the clipped side passes no gradient', async () => {
    const p = make(1e-2);
    const seqs = await batch(p);
    const now = await p.score(seqs.map((s) => s.tokens));
    const c = 0.2;
    const cfg = { kind: 'ppo' as const, valueCoef: 1, valueClip: c, klCoef: 0, entropyCoef: 0 };
    // Zero advantages make the policy term's gradient 0, so the step only sees the value loss.
    const ppo = (old: (v: number, t: number) => number, ret: (v: number, t: number) => number) =>
      seqs.map((s, k) => ({
        ...s,
        advantages: s.tokens.map(() => 0),
        oldLogprobs: now[k]!.logprobs,
        oldValues: now[k]!.values.map(old),
        returns: now[k]!.values.map(ret),
      }));
    const expected = (b: ReturnType<typeof ppo>) => {
      let clipped = 0;
      let plain = 0;
      const total = b.reduce((a, s) => a + s.lossMask.reduce((x, y) => x + y, 0), 0);
      b.forEach((s, k) =>
        s.tokens.forEach((_, t) => {
          if (!s.lossMask[t]) return;
          const v = now[k]!.values[t]!;
          const o = s.oldValues[t]!;
          const R = s.returns[t]!;
          const vc = o + Math.min(Math.max(v - o, -c), c);
          clipped += (0.5 * Math.max((v - R) ** 2, (vc - R) ** 2)) / total;
          plain += (0.5 * (v - R) ** 2) / total;
        }),
      );
      return { clipped, plain };
    };
    // Mixed: old values 1 above or below v on alternate tokens, returns 0.5 above v, so
    // some tokens take the clipped branch and some the plain one.
    const mixed = ppo(
      (v, t) => v + (t % 2 ? 1 : -1),
      (v) => v + 0.5,
    );
    const want = expected(mixed);
    expect(Math.abs(want.clipped - want.plain)).toBeGreaterThan(1e-2); // the max really matters here
    const q = Policy.fromState(p.state(), { providers: ['cpu'], threads: 1 });
    const r = await q.trainStep(mixed, cfg);
    expect(r.valueLoss).toBeCloseTo(want.clipped, 5);
    expect(r.loss).toBeCloseTo(r.policyLoss + r.valueLoss, 5);
    expect(r.policyLoss).toBeCloseTo(0, 6);
    // All clipped: old = v + 1, R = v - 1; the clipped error (1.8) beats the plain one (1),
    // and the clipped value is constant in v, so no gradient reaches any weight.
    const allClipped = ppo(
      (v) => v + 1,
      (v) => v - 1,
    );
    const rc = await Policy.fromState(p.state(), { providers: ['cpu'], threads: 1 }).trainStep(allClipped, cfg);
    expect(rc.valueLoss).toBeCloseTo(expected(allClipped).clipped, 5);
    expect(rc.valueLoss).toBeCloseTo(0.5 * 1.8 ** 2, 4);
    expect(rc.gradNorm).toBeLessThan(1e-6);
    // All plain: old = v + 1, R = v + 2; gradient flows.
    const allPlain = ppo(
      (v) => v + 1,
      (v) => v + 2,
    );
    const rp = await Policy.fromState(p.state(), { providers: ['cpu'], threads: 1 }).trainStep(allPlain, cfg);
    expect(rp.valueLoss).toBeCloseTo(0.5 * 2 ** 2, 4);
    expect(rp.gradNorm).toBeGreaterThan(1e-2);
    await p.release();
    await q.release();
  });

  it('a PPO step on GAE advantages over a multi-turn episode moves each policy token the way its advantage says', async () => {
    const p = make(3e-3);
    // Turn 1 (policy) "p:aaaa", tool output "<ok>" (not trained), turn 2 (policy) "bb".
    const episodes = [
      { turns: ['p:', 'aaaa', '<ok>', 'bb'], reward: 1 },
      { turns: ['p:', 'cccc', '<no>', 'dd'], reward: -1 },
    ];
    const built = episodes.map((e) => {
      const tokens: number[] = [p.tokenizer.spec.bos];
      const policy: number[] = [0];
      e.turns.forEach((turn, i) => {
        for (const t of p.tokenizer.encode(turn)) {
          tokens.push(t);
          policy.push(i === 1 || i === 3 ? 1 : 0);
        }
      });
      return { tokens, policy, reward: e.reward };
    });
    const now = await p.score(built.map((b) => b.tokens));
    const seqs = built.map((b, k) => {
      const rewards = b.tokens.map((_, t) => (t === b.tokens.length - 1 ? b.reward : 0));
      const { advantages, returns } = gae(rewards, now[k]!.values, b.policy, { gamma: 0.99, lambda: 0.95 });
      return { tokens: b.tokens, lossMask: b.policy, advantages, returns, oldLogprobs: now[k]!.logprobs, oldValues: now[k]!.values };
    });
    seqs.forEach((s, k) =>
      s.tokens.forEach((_, t) => {
        if (!s.lossMask[t])
          expect(s.advantages[t]).toBe(0); // tool tokens get no advantage
        else expect(Math.sign(s.advantages[t]!)).toBe(episodes[k]!.reward); // values are ~0 at init
      }),
    );
    const r = await p.trainStep(seqs, { kind: 'ppo' });
    expect(r.clipFraction).toBe(0); // on-policy
    expect(r.valueLoss).toBeGreaterThan(0);
    expect(r.tokens).toBe(seqs.reduce((a, s) => a + s.lossMask.reduce((x, y) => x + y, 0), 0));
    const after = await p.score(seqs.map((s) => s.tokens));
    seqs.forEach((s, k) => {
      const d = seqLogprob(after[k]!, s.lossMask) - seqLogprob(now[k]!, s.lossMask);
      expect(Math.sign(d)).toBe(episodes[k]!.reward);
    });
    await p.release();
  });

  it('rejects batches without what the loss needs', async () => {
    const p = make();
    const seqs = await batch(p);
    await expect(p.trainStep(seqs, { kind: 'ppo' })).rejects.toThrow(/oldValues/);
    await expect(
      p.trainStep(
        seqs.map((s) => ({ ...s, refLogprobs: undefined })),
        { kind: 'grpo', klCoef: 0.1 },
      ),
    ).rejects.toThrow(/refLogprobs/);
    await expect(p.trainStep([{ tokens: [1, 2, 3], lossMask: [0, 1] }], { kind: 'sft' })).rejects.toThrow(/lossMask/);
  });
});
