import { describe, expect, it } from 'vitest';
import { runConfigSchema, type RunConfig, type RunConfigInput } from '@/core/run-config';
import { gae, MIN_GROUP_STD } from '@/lib/policy/advantages';
import type { TrainSequence } from '@/lib/policy/batch';
import { Policy } from '@/lib/policy/policy';
import { buildLearnerBatch, lossConfigFor, PPO_GAE, turnsToScore, withLearnerDefaults, type EpisodeReward, type TurnSeq } from './learner-batch';

// Each learner option of the run config, from the config to what it changes: the batch
// (advantages, KL in the reward) or the loss of a real training step (docs/rl.md, "Learner options").

const cfg = (o: RunConfigInput = {}): RunConfig => runConfigSchema.parse({ klCoef: 0, ...o });
const cpu = { providers: ['cpu' as const], threads: 1 };
const NORM = 40; // the per-turn token budget 'token-sum-norm' divides by

// ---- batch side: advantages and the KL in the reward, no graph needed ----

/** One single-turn episode per reward; tokens 0..2 prompt, then `n` response tokens. */
function episodesOf(rewards: number[], groupSize: number, n = 3) {
  const episodes: EpisodeReward[] = rewards.map((reward, i) => ({ id: `e${i}`, reward, group: Math.floor(i / groupSize) }));
  const turns: TurnSeq[] = episodes.map((e, i) => ({
    episodeId: e.id,
    tokens: Array.from({ length: 3 + n }, (_, t) => 65 + ((t + i) % 20)),
    lossMask: Array.from({ length: 3 + n }, (_, t) => (t >= 3 ? 1 : 0)),
    oldLogprobs: Array.from({ length: 3 + n }, (_, t) => (t >= 3 ? -1 - 0.1 * ((t + i) % 4) : 0)),
  }));
  return { episodes, turns };
}
const advOf = (seqs: { advantages?: number | number[] }[]) => seqs.map((s) => s.advantages as number);

describe('learner options: the batch', () => {
  const rewards = [1, 0, 0, 1, 0.9, 0.1, 0.5, 0.5];

  it('scaleAdvantagesByStd: std-scaled group advantages by default, r − mean (Dr. GRPO) when false', () => {
    const { episodes, turns } = episodesOf(rewards, 4);
    const scaled = advOf(buildLearnerBatch(cfg(), { episodes, turns }).sequences);
    expect(scaled.slice(0, 4).map((a) => +a.toFixed(4))).toEqual([1, -1, -1, 1]);
    const dr = advOf(buildLearnerBatch(cfg({ scaleAdvantagesByStd: false }), { episodes, turns }).sequences);
    expect(dr.map((a) => +a.toFixed(6))).toEqual([0.5, -0.5, -0.5, 0.5, 0.4, -0.4, 0, 0].filter((a) => a !== 0));
  });

  it(`groups whose reward std is below ${MIN_GROUP_STD} get zero advantages and drop out of the batch`, () => {
    // all-pass group with a 1e-4 efficiency wobble; a real difference next to it
    const { episodes, turns } = episodesOf([1, 1, 1, 1.0001, 1, 0, 1, 0], 4);
    const seqs = buildLearnerBatch(cfg(), { episodes, turns }).sequences;
    expect(seqs.map((s) => s.tokens)).toEqual(turns.slice(4).map((t) => t.tokens));
    expect(turnsToScore(cfg(), episodes, turns)).toHaveLength(4); // nothing scored for the noise group
  });

  it('negativeAdvantageWeight scales negative advantages only', () => {
    const { episodes, turns } = episodesOf(rewards.slice(0, 4), 4);
    expect(advOf(buildLearnerBatch(cfg({ negativeAdvantageWeight: 0.2 }), { episodes, turns }).sequences).map((a) => +a.toFixed(4))).toEqual([
      1, -0.2, -0.2, 1,
    ]);
  });

  it('klIn=reward (GRPO): each episode reward loses klCoef × Σ KL of its tokens before the group advantages; the loss gets no KL term', () => {
    const { episodes, turns } = episodesOf([1, 1, 0, 0], 4);
    const ref = turns.map((q, i) => q.oldLogprobs.map((lp, t) => (q.lossMask[t] ? lp + 0.3 * (i + 1) : 0)));
    const est = { k1: (r: number) => -r, k2: (r: number) => 0.5 * r * r, k3: (r: number) => Math.exp(r) - r - 1 };
    const seen = new Set<string>();
    for (const k of ['k1', 'k2', 'k3'] as const) {
      const c = cfg({ klCoef: 0.5, klIn: 'reward', klEstimator: k });
      const b = buildLearnerBatch(c, { episodes, turns, refLogprobs: ref });
      // per episode: 3 response tokens, r = ref − old = 0.3·(i + 1)
      const shaped = episodes.map((e, i) => e.reward - 0.5 * 3 * est[k](0.3 * (i + 1)));
      const m = shaped.reduce((a, x) => a + x, 0) / 4;
      const sd = Math.sqrt(shaped.reduce((a, x) => a + (x - m) ** 2, 0) / 4);
      advOf(b.sequences).forEach((a, i) => expect(a).toBeCloseTo((shaped[i]! - m) / (sd + 1e-6), 5));
      expect(b.klRewardPenalty).toBeCloseTo(episodes.reduce((a, _, i) => a + 0.5 * 3 * est[k](0.3 * (i + 1)), 0) / 4, 6);
      expect(b.sequences.every((s) => s.refLogprobs)).toBe(true); // still reported as the kl metric
      expect(lossConfigFor(c, { normTokens: NORM })).toMatchObject({ klCoef: 0 });
      seen.add(
        advOf(b.sequences)
          .map((a) => a.toFixed(4))
          .join(),
      );
    }
    expect(seen.size).toBe(3); // the estimators differ
    // in the loss (the default), the rewards stay as they were
    const inLoss = cfg({ klCoef: 0.5 });
    expect(advOf(buildLearnerBatch(inLoss, { episodes, turns, refLogprobs: ref }).sequences).map((a) => +a.toFixed(4))).toEqual([1, 1, -1, -1]);
    expect(lossConfigFor(inLoss, { normTokens: NORM })).toMatchObject({ klCoef: 0.5, klEstimator: 'k3' });
    // with the KL in the reward, equal rewards are no longer "no signal": nothing is dropped before scoring
    expect(
      turnsToScore(
        cfg({ klCoef: 0.5, klIn: 'reward' }),
        episodes.map((e) => ({ ...e, reward: 1 })),
        turns,
      ),
    ).toHaveLength(4);
  });

  it('klIn=reward (PPO): the KL penalty is a per-token reward before GAE', () => {
    const { episodes, turns } = episodesOf([1, 0], 2);
    const ref = turns.map((q) => q.oldLogprobs.map((lp, t) => (q.lossMask[t] ? lp - 0.2 * t : 0)));
    const values = turns.map((q) => q.tokens.map((_, t) => 0.1 * t));
    const c = cfg({ algorithm: 'ppo', klCoef: 0.1, klIn: 'reward', klEstimator: 'k2' });
    const b = buildLearnerBatch(c, { episodes, turns, refLogprobs: ref, values });
    turns.forEach((q, i) => {
      const rew = q.tokens.map((_, t) => (q.lossMask[t] ? -0.1 * 0.5 * (0.2 * t) ** 2 : 0));
      rew[rew.length - 1]! += episodes[i]!.reward;
      const want = gae(rew, values[i]!, q.lossMask, PPO_GAE);
      expect(b.sequences[i]!.advantages).toEqual(want.advantages);
      expect(b.sequences[i]!.returns).toEqual(want.returns);
    });
    const plain = buildLearnerBatch(cfg({ algorithm: 'ppo', klCoef: 0.1 }), { episodes, turns, refLogprobs: ref, values });
    expect(plain.sequences[0]!.advantages).not.toEqual(b.sequences[0]!.advantages);
  });

  it('whitenAdvantages (PPO): advantages over the batch policy tokens get mean 0 and std 1; returns are not touched', () => {
    const { episodes, turns } = episodesOf([1, 0, 0.5], 3, 4);
    const values = turns.map((q) => q.tokens.map(() => 0.2));
    const raw = buildLearnerBatch(cfg({ algorithm: 'ppo' }), { episodes, turns, values }).sequences;
    const w = buildLearnerBatch(cfg({ algorithm: 'ppo', whitenAdvantages: true }), { episodes, turns, values }).sequences;
    const picked = (seqs: typeof w) => seqs.flatMap((s) => (s.advantages as number[]).filter((_, t) => s.lossMask[t]));
    const m = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    const xs = picked(w);
    expect(m(xs)).toBeCloseTo(0, 6);
    expect(Math.sqrt(m(xs.map((x) => (x - m(xs)) ** 2)))).toBeCloseTo(1, 5);
    expect(Math.abs(m(picked(raw)))).toBeGreaterThan(0.05); // not already whitened
    expect(w.map((s) => s.returns)).toEqual(raw.map((s) => s.returns));
    w.forEach((s) => s.lossMask.forEach((mk, t) => mk || expect((s.advantages as number[])[t]).toBe(0)));
  });
});

// ---- loss side: a real training step from the run config's loss settings ----

const model = { dModel: 32, nLayers: 1, nHeads: 2, dMlp: 64, maxSeqLen: 32 };
const ADV = [1, 0.5, -1, -0.8];

async function setup() {
  const p = Policy.create({ model, seed: 9, optim: { lr: 1e-2, weightDecay: 0 } }, cpu);
  const tokens = ['aaaa', 'bbbbbb', 'cc', 'ddd'].map((c) => p.tokenizer.encode(`p:${c}`, { bos: true }));
  const now = await p.score(tokens);
  const seqs = tokens.map((t, i) => ({ tokens: t, lossMask: t.map((_, k): number => (k >= 3 ? 1 : 0)), advantages: ADV[i]!, oldLogprobs: now[i]!.logprobs }));
  const state = p.state();
  await p.release();
  const step = async (c: RunConfig, batch: TrainSequence[]) => {
    const q = Policy.fromState(state, cpu);
    const r = await q.trainStep(batch, lossConfigFor(c, { normTokens: NORM }));
    await q.release();
    return r;
  };
  return { seqs, now, step };
}

/** Σ_t w_t f(sequence, token) with the weights of an aggregation. */
function weighted(seqs: { lossMask: number[] }[], agg: 'token' | 'sequence' | 'token-sum-norm', f: (i: number, t: number) => number) {
  const counts = seqs.map((s) => s.lossMask.reduce((a, b) => a + b, 0));
  const total = counts.reduce((a, b) => a + b, 0);
  let sum = 0;
  seqs.forEach((s, i) =>
    s.lossMask.forEach((m, t) => {
      if (!m) return;
      const w = agg === 'token' ? 1 / total : agg === 'sequence' ? 1 / (counts[i]! * seqs.length) : 1 / (NORM * seqs.length);
      sum += w * f(i, t);
    }),
  );
  return sum;
}

describe('learner options: the loss of a training step', () => {
  it('lossAggregation: on-policy surrogate is −Σ w·A with token, sequence and token-sum-norm (÷ the token budget) weights', async () => {
    const { seqs, step } = await setup();
    const got: number[] = [];
    for (const agg of ['token', 'sequence', 'token-sum-norm'] as const) {
      const r = await step(cfg({ lossAggregation: agg }), seqs);
      expect(r.policyLoss).toBeCloseTo(
        weighted(seqs, agg, (i) => -ADV[i]!),
        5,
      );
      got.push(r.policyLoss);
    }
    expect(new Set(got.map((x) => x.toFixed(4))).size).toBe(3);
  });

  it('entropyCoef: the loss is the surrogate minus entropyCoef × entropy', async () => {
    const { seqs, step } = await setup();
    const off = await step(cfg(), seqs);
    expect(off.loss).toBeCloseTo(off.policyLoss, 6);
    const on = await step(cfg({ entropyCoef: 0.05 }), seqs);
    expect(on.entropy).toBeGreaterThan(1);
    expect(on.loss).toBeCloseTo(on.policyLoss - 0.05 * on.entropy, 5);
  });

  it('klIn=loss with klEstimator k1 / k2 / k3: the loss adds klCoef × Σ w·k(r), r = log π_ref − log π; the kl metric stays k3', async () => {
    const { seqs, now, step } = await setup();
    const withRef = seqs.map((s, i) => ({ ...s, refLogprobs: now[i]!.logprobs.map((lp, t) => lp + 0.4 * Math.sin(t + i)) }));
    const r = (i: number, t: number) => 0.4 * Math.sin(t + i);
    const est = { k1: (x: number) => -x, k2: (x: number) => 0.5 * x * x, k3: (x: number) => Math.exp(x) - x - 1 };
    const penalties: number[] = [];
    for (const k of ['k1', 'k2', 'k3'] as const) {
      const out = await step(cfg({ klCoef: 0.5, klEstimator: k }), withRef);
      const want = 0.5 * weighted(seqs, 'token', (i, t) => est[k](r(i, t)));
      expect(out.loss - out.policyLoss).toBeCloseTo(want, 5);
      expect(out.kl).toBeCloseTo(
        weighted(seqs, 'token', (i, t) => est.k3(r(i, t))),
        5,
      );
      penalties.push(out.loss - out.policyLoss);
    }
    expect(new Set(penalties.map((x) => x.toFixed(4))).size).toBe(3);
  });

  it('clipRatioC: a negative-advantage token whose ratio is above c costs c·|A| (dual clip); a large c lifts the cap', async () => {
    const { seqs, step } = await setup();
    // old logprobs 1.5 nats lower on every token: ratio e^1.5 ≈ 4.5 > 3
    const off = seqs.map((s) => ({ ...s, oldLogprobs: s.oldLogprobs.map((x) => x - 1.5) }));
    const rho = Math.exp(1.5);
    const surrogate = (c: number) =>
      weighted(seqs, 'token', (i) => {
        const a = ADV[i]!;
        const clipped = -Math.min(rho * a, Math.min(Math.max(rho, 0.8), 1.28) * a);
        return a < 0 ? Math.min(clipped, c * -a) : clipped;
      });
    const capped = await step(cfg({ clipRatioC: 3 }), off);
    expect(capped.policyLoss).toBeCloseTo(surrogate(3), 4);
    expect(capped.dualClipFraction).toBeCloseTo(
      weighted(seqs, 'token', (i) => (ADV[i]! < 0 ? 1 : 0)),
      5,
    );
    const uncapped = await step(cfg({ clipRatioC: 100 }), off);
    expect(uncapped.policyLoss).toBeCloseTo(surrogate(100), 4);
    expect(uncapped.policyLoss).toBeGreaterThan(capped.policyLoss + 0.2);
    expect(uncapped.dualClipFraction).toBe(0);
  });

  it('valueCoef and valueClip (PPO): loss = surrogate + valueCoef × ½·max((V − R)², (V_old + clip(V − V_old, ±valueClip) − R)²)', async () => {
    const { seqs, now, step } = await setup();
    const ppo = seqs.map((s, i) => ({
      ...s,
      advantages: s.tokens.map(() => 0),
      oldValues: now[i]!.values.map((v, t) => v + (t % 2 ? 1 : -1)),
      returns: now[i]!.values.map((v) => v + 0.5),
    }));
    const valueLoss = (clip: number) =>
      weighted(seqs, 'token', (i, t) => {
        const v = now[i]!.values[t]!;
        const o = ppo[i]!.oldValues[t]!;
        const R = ppo[i]!.returns[t]!;
        return 0.5 * Math.max((v - R) ** 2, (o + Math.min(Math.max(v - o, -clip), clip) - R) ** 2);
      });
    const losses: number[] = [];
    for (const [valueCoef, valueClip] of [
      [0.5, 0.2],
      [2, 0.2],
      [0.5, 5],
    ] as const) {
      const r = await step(cfg({ algorithm: 'ppo', valueCoef, valueClip }), ppo);
      expect(r.valueLoss).toBeCloseTo(valueLoss(valueClip), 4);
      expect(r.loss).toBeCloseTo(r.policyLoss + valueCoef * r.valueLoss, 4);
      losses.push(r.loss);
    }
    expect(new Set(losses.map((x) => x.toFixed(3))).size).toBe(3);
  });
});

describe('learner options: the run config', () => {
  it('defaults keep the standard loss, and a config stored before these options existed reads the same defaults', () => {
    const c = cfg();
    expect(lossConfigFor(c, { normTokens: NORM })).toEqual({
      kind: 'grpo',
      clipLow: 0.2,
      clipHigh: 0.28,
      clipRatioC: 3,
      klCoef: 0,
      klEstimator: 'k3',
      entropyCoef: 0,
      aggregation: 'token',
      normTokens: NORM,
      temperature: 1,
    });
    const { scaleAdvantagesByStd, lossAggregation, entropyCoef, clipRatioC, klIn, klEstimator, valueCoef, valueClip, whitenAdvantages, ...old } = c;
    void [scaleAdvantagesByStd, lossAggregation, entropyCoef, clipRatioC, klIn, klEstimator, valueCoef, valueClip, whitenAdvantages];
    expect(withLearnerDefaults(old as RunConfig)).toEqual(c);
  });

  it('refuses temperature 0 for a training run, saying why and what to use', () => {
    const r = runConfigSchema.safeParse({ temperature: 0 });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['temperature']);
    expect(r.error!.issues[0]!.message).toMatch(/above 0 .*greedy.*held-out pass@1 is already greedy/);
    expect(lossConfigFor(cfg({ temperature: 0.7 }), { normTokens: NORM })).toMatchObject({ temperature: 0.7 });
  });

  it('bounds are checked with the field named', () => {
    for (const [k, v] of [
      ['clipRatioC', 1],
      ['entropyCoef', -0.1],
      ['valueClip', 0],
      ['klEstimator', 'k4'],
      ['klIn', 'both'],
      ['lossAggregation', 'mean'],
    ] as const) {
      const r = runConfigSchema.safeParse({ [k]: v });
      expect(r.success, k).toBe(false);
      expect(r.error!.issues[0]!.path, k).toEqual([k]);
    }
  });
});
