import { z } from 'zod';
import type { Graph, Value } from './onnx/graph';
import * as o from './onnx/ops';

/**
 * Log-ratios (policy vs old, reference vs policy) are clamped to ±LOG_RATIO_CLAMP before
 * `exp`: float32 `exp` overflows to Infinity above ~88.7, and one such token turns every
 * gradient and then every weight NaN. exp(20) ≈ 4.9e8 is still finite; the bound is verl's.
 */
export const LOG_RATIO_CLAMP = 20;
/** The k3 KL per token is clamped to at most KL_CLAMP (verl's low_var_kl bound). */
export const KL_CLAMP = 10;

/** Settings shared by the clipped-surrogate losses (GRPO and PPO). */
const policyGradientFields = {
  /**
   * Dual-clip bound c (verl's clip_ratio_c, Ye et al. 2020): for a negative advantage the
   * per-token policy loss is capped at c·|A|, so a token whose ratio blew up far above
   * 1 + clipHigh cannot dominate the step. Must exceed 1.
   */
  clipRatioC: z.number().gt(1, 'clipRatioC must be above 1 (it caps the ratio for negative advantages)').default(3),
  klCoef: z.number().min(0).default(0),
  /**
   * The KL estimator added to the loss when klCoef > 0, with lr = log π − log π_ref:
   * k1 = lr, k2 = lr²/2, k3 = exp(−lr) + lr − 1 (Schulman's estimators). The `kl` metric
   * is always k3, so runs stay comparable.
   */
  klEstimator: z.enum(['k1', 'k2', 'k3']).default('k3'),
  entropyCoef: z.number().min(0).default(0),
  /**
   * 'token': each token of the step counts equally; 'sequence': each sequence counts
   * equally, its tokens averaged; 'token-sum-norm' (Dr. GRPO): each sequence's token sum
   * divided by the constant `normTokens`, averaged over sequences, so the loss no longer
   * favours short wrong answers or long right ones through the length normaliser.
   */
  aggregation: z.enum(['token', 'sequence', 'token-sum-norm']).default('token'),
  /** The constant divisor of 'token-sum-norm' (normally the per-sequence token budget). */
  normTokens: z.number().positive().optional(),
  /**
   * The sampling temperature. Logits are divided by it before the log-softmax, so ratios,
   * KL and entropy are of the distribution the tokens were drawn from (as verl and TRL do);
   * old and reference logprobs must come from the same tempered distribution.
   */
  temperature: z.number().positive().default(1),
};

/**
 * Loss settings, baked into the training graph. `grpo` and `ppo` share the clipped
 * surrogate (separate low/high clip ratios, dual clip), the KL to a reference and the
 * entropy bonus; `ppo` adds the clipped value loss. Advantages are computed outside the
 * graph (group-relative for GRPO, GAE for PPO; see advantages.ts).
 */
export const LossConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sft') }),
  z.object({
    kind: z.literal('grpo'),
    clipLow: z.number().min(0).default(0.2),
    clipHigh: z.number().min(0).default(0.28),
    ...policyGradientFields,
  }),
  z.object({
    kind: z.literal('ppo'),
    clipLow: z.number().min(0).default(0.2),
    // the same as GRPO's and a run's (core/run-config.ts): one default, as docs/policy.md says
    clipHigh: z.number().min(0).default(0.28),
    ...policyGradientFields,
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

/**
 * Per-step metrics, each a weighted sum over the step's tokens (so micro-batches add up).
 * `dualClipFraction`: share of tokens where the dual-clip cap applied. `logRatioAbs`: mean
 * |log π − log π_old| before clamping; 0 (to float rounding) on a step whose weights are the
 * ones that sampled, so anything larger there means stored and recomputed logprobs disagree.
 */
export const METRICS = ['loss', 'policyLoss', 'valueLoss', 'kl', 'entropy', 'clipFraction', 'dualClipFraction', 'logRatioAbs'] as const;
export type MetricName = (typeof METRICS)[number];

export type LossOutputs = { loss: Value; metrics: Record<MetricName, Value>; tokenLogprobs: Value; entropy: Value };

export function tokenLogprobs(logits: Value, targets: Value): { logp: Value; all: Value } {
  const all = o.logSoftmax(logits, -1);
  const logp = o.squeeze(o.gatherElements(all, o.unsqueeze(targets, [-1]), 2), [-1]);
  return { logp, all };
}

/** Logits of the tempered distribution (T = 1 leaves the graph exactly as before). */
export function tempered(logits: Value, temperature: number): Value {
  return temperature === 1 ? logits : o.mul(logits, 1 / temperature);
}

/**
 * Per-token KL(π || π_ref) estimate from r = log π_ref − log π (clamped to ±LOG_RATIO_CLAMP):
 * k1 = −r, k2 = r²/2, k3 = exp(r) − r − 1 (≥ 0, clamped to KL_CLAMP).
 */
export function klEstimate(r: Value, estimator: 'k1' | 'k2' | 'k3'): Value {
  const rc = o.clip(r, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
  if (estimator === 'k1') return o.neg(rc);
  if (estimator === 'k2') return o.mul(o.mul(rc, rc), 0.5);
  return o.clip(o.sub(o.sub(o.exp(rc), rc), 1), -KL_CLAMP, KL_CLAMP);
}

export function buildLoss(g: Graph, cfg: LossConfig, rawLogits: Value, values: Value, x: LossInputs): LossOutputs {
  return g.scope('loss', () => {
    const logits = cfg.kind === 'sft' ? rawLogits : tempered(rawLogits, cfg.temperature);
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
        metrics: {
          loss: nll,
          policyLoss: nll,
          valueLoss: zero,
          kl: zero,
          entropy: wsum(entropyTok),
          clipFraction: zero,
          dualClipFraction: zero,
          logRatioAbs: zero,
        },
      };
    }
    const need = (v: Value | undefined, n: string) => {
      if (!v) throw new Error(`${cfg.kind} loss needs ${n}`);
      return v;
    };
    const adv = need(x.advantages, 'advantages');
    const logRatio = o.sub(logp, need(x.oldLogprobs, 'oldLogprobs'));
    const ratio = o.exp(o.clip(logRatio, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
    // -min(ρA, clip(ρ)A), then the dual clip: for A < 0 the loss is capped at c·|A| (a
    // constant, so such a token passes no gradient).
    const clippedTok = o.neg(o.min(o.mul(ratio, adv), o.mul(o.clip(ratio, 1 - cfg.clipLow, 1 + cfg.clipHigh), adv)));
    const cap = o.mul(adv, -cfg.clipRatioC);
    const negative = o.less(adv, 0);
    const pgTok = o.where(negative, o.min(clippedTok, cap), clippedTok);
    const dualClipped = o.and(negative, o.greater(clippedTok, cap));
    // A token is "clipped" when its ratio left [1 - low, 1 + high] (the gradient is then 0
    // on the side the advantage pushes).
    const outside = g.node('Or', [o.less(ratio, 1 - cfg.clipLow), o.greater(ratio, 1 + cfg.clipHigh)], [{ dtype: 'bool', shape: ratio.shape }])[0]!;
    const clipFraction = wsum(o.cast(outside, 'float32'));
    let lossTok = pgTok;
    let kl: Value = zero;
    if (x.refLogprobs) {
      const r = o.sub(x.refLogprobs, logp);
      const k3 = klEstimate(r, 'k3');
      kl = wsum(k3);
      if (cfg.klCoef > 0) lossTok = o.add(lossTok, o.mul(cfg.klEstimator === 'k3' ? k3 : klEstimate(r, cfg.klEstimator), cfg.klCoef));
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
      metrics: {
        loss,
        policyLoss: wsum(pgTok),
        valueLoss,
        kl,
        entropy: wsum(entropyTok),
        clipFraction,
        dualClipFraction: wsum(o.cast(dualClipped, 'float32')),
        logRatioAbs: wsum(o.max(logRatio, o.neg(logRatio))),
      },
    };
  });
}
