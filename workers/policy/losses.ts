import { z } from 'zod';
import type { Graph, Value } from './onnx/graph';
import * as o from './onnx/ops';

/**
 * Loss settings, baked into the training graph. `grpo` and `ppo` share the clipped
 * surrogate (separate low/high clip ratios), the k3 KL to a reference and the entropy
 * bonus; `ppo` adds the clipped value loss. Advantages are computed outside the graph
 * (group-relative for GRPO, GAE for PPO; see advantages.ts).
 */
export const LossConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sft') }),
  z.object({
    kind: z.literal('grpo'),
    clipLow: z.number().min(0).default(0.2),
    clipHigh: z.number().min(0).default(0.28),
    klCoef: z.number().min(0).default(0),
    entropyCoef: z.number().min(0).default(0),
    aggregation: z.enum(['token', 'sequence']).default('token'),
  }),
  z.object({
    kind: z.literal('ppo'),
    clipLow: z.number().min(0).default(0.2),
    clipHigh: z.number().min(0).default(0.2),
    klCoef: z.number().min(0).default(0),
    entropyCoef: z.number().min(0).default(0),
    aggregation: z.enum(['token', 'sequence']).default('token'),
    valueClip: z.number().positive().default(0.2),
    valueCoef: z.number().min(0).default(0.5),
  }),
]);
export type LossConfig = z.infer<typeof LossConfig>;
export type LossConfigInput = z.input<typeof LossConfig>;

/** Batch inputs the loss reads, all [B, T] and aligned with the predicted token. */
export type LossInputs = {
  targets: Value; // int64
  /** Per-token weights: mask / normaliser over the whole step (token- or sequence-level). */
  weights: Value;
  /** 1 where a token counts (for counting clipped tokens etc.). */
  mask: Value;
  advantages?: Value;
  oldLogprobs?: Value;
  refLogprobs?: Value;
  oldValues?: Value;
  returns?: Value;
};

export const METRICS = ['loss', 'policyLoss', 'valueLoss', 'kl', 'entropy', 'clipFraction'] as const;
export type MetricName = (typeof METRICS)[number];

export type LossOutputs = { loss: Value; metrics: Record<MetricName, Value>; tokenLogprobs: Value; entropy: Value };

export function tokenLogprobs(logits: Value, targets: Value): { logp: Value; all: Value } {
  const all = o.logSoftmax(logits, -1);
  const logp = o.squeeze(o.gatherElements(all, o.unsqueeze(targets, [-1]), 2), [-1]);
  return { logp, all };
}

export function buildLoss(g: Graph, cfg: LossConfig, logits: Value, values: Value, x: LossInputs): LossOutputs {
  return g.scope('loss', () => {
    const { logp, all } = tokenLogprobs(logits, x.targets);
    const wsum = (v: Value) => o.sumAll(o.mul(v, x.weights));
    // Entropy of the full next-token distribution; reported always, a bonus when asked.
    const entropyTok = o.neg(o.reduceSum(o.mul(o.exp(all), all), [-1]));
    const zero = g.scalar(0, 'float32');
    if (cfg.kind === 'sft') {
      const nll = wsum(o.neg(logp));
      return {
        loss: nll,
        tokenLogprobs: logp,
        entropy: entropyTok,
        metrics: { loss: nll, policyLoss: nll, valueLoss: zero, kl: zero, entropy: wsum(entropyTok), clipFraction: zero },
      };
    }
    const need = (v: Value | undefined, n: string) => {
      if (!v) throw new Error(`${cfg.kind} loss needs ${n}`);
      return v;
    };
    const adv = need(x.advantages, 'advantages');
    const ratio = o.exp(o.sub(logp, need(x.oldLogprobs, 'oldLogprobs')));
    const s1 = o.mul(ratio, adv);
    const s2 = o.mul(o.clip(ratio, 1 - cfg.clipLow, 1 + cfg.clipHigh), adv);
    const pgTok = o.neg(o.min(s1, s2));
    // A token is "clipped" when its ratio left [1 - low, 1 + high] (the gradient is then 0
    // on the side the advantage pushes).
    const outside = g.node('Or', [o.less(ratio, 1 - cfg.clipLow), o.greater(ratio, 1 + cfg.clipHigh)], [{ dtype: 'bool', shape: ratio.shape }])[0]!;
    const clipFraction = wsum(o.cast(outside, 'float32'));
    let lossTok = pgTok;
    let kl: Value = zero;
    if (x.refLogprobs) {
      // k3 estimator of KL(pi || ref): exp(r) - r - 1 with r = log ref - log pi, always >= 0.
      const r = o.sub(x.refLogprobs, logp);
      const klTok = o.sub(o.sub(o.exp(r), r), 1);
      kl = wsum(klTok);
      if (cfg.klCoef > 0) lossTok = o.add(lossTok, o.mul(klTok, cfg.klCoef));
    }
    if (cfg.entropyCoef > 0) lossTok = o.sub(lossTok, o.mul(entropyTok, cfg.entropyCoef));
    let loss = wsum(lossTok);
    let valueLoss: Value = zero;
    if (cfg.kind === 'ppo') {
      const old = need(x.oldValues, 'oldValues');
      const ret = need(x.returns, 'returns');
      const vClipped = o.add(old, o.clip(o.sub(values, old), -cfg.valueClip, cfg.valueClip));
      const e1 = o.sub(values, ret);
      const e2 = o.sub(vClipped, ret);
      const vTok = o.mul(o.max(o.mul(e1, e1), o.mul(e2, e2)), 0.5);
      valueLoss = wsum(vTok);
      loss = o.add(loss, o.mul(valueLoss, cfg.valueCoef));
    }
    return {
      loss,
      tokenLogprobs: logp,
      entropy: entropyTok,
      metrics: { loss, policyLoss: wsum(pgTok), valueLoss, kl, entropy: wsum(entropyTok), clipFraction },
    };
  });
}
