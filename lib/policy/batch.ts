import { z } from 'zod';
import { NEG_INF } from './model';
import { f32, i64, type ort } from './onnx-session';

/**
 * One training sequence (prompt + completion). Per-token arrays have the sequence's length
 * and entry i describes predicting token i from tokens < i (entry 0 is never trained).
 */
export const TrainSequence = z
  .object({
    tokens: z.array(z.number().int().min(0)).min(2),
    lossMask: z.array(z.number().min(0).max(1)),
    /** One advantage for the whole sequence (GRPO) or one per token (PPO/GAE). */
    advantages: z.union([z.number(), z.array(z.number())]).optional(),
    oldLogprobs: z.array(z.number()).optional(),
    refLogprobs: z.array(z.number()).optional(),
    oldValues: z.array(z.number()).optional(),
    returns: z.array(z.number()).optional(),
  })
  .superRefine((s, ctx) => {
    for (const k of ['lossMask', 'oldLogprobs', 'refLogprobs', 'oldValues', 'returns'] as const) {
      const a = s[k];
      if (a && a.length !== s.tokens.length) ctx.addIssue({ code: 'custom', message: `${k} has ${a.length} entries for ${s.tokens.length} tokens`, path: [k] });
    }
    if (Array.isArray(s.advantages) && s.advantages.length !== s.tokens.length) {
      ctx.addIssue({ code: 'custom', message: 'advantages must be a number or one per token', path: ['advantages'] });
    }
  });
export type TrainSequence = z.infer<typeof TrainSequence>;

export type Aggregation = 'token' | 'sequence' | 'token-sum-norm';

/** Round up so steps with nearby lengths share one compiled graph. */
export function paddedLength(maxTokens: number, multiple = 16): number {
  return Math.ceil((maxTokens - 1) / multiple) * multiple;
}

/** Causal additive mask [B, 1, T, T] (right padding only needs causality). */
export function causalMask(B: number, T: number): ort.Tensor {
  const m = new Float32Array(B * T * T);
  for (let b = 0; b < B; b++) for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[b * T * T + i * T + j] = NEG_INF;
  return f32(m, [B, 1, T, T]);
}

/**
 * Pack sequences into [B, T] feeds (right-padded). `weights` make the loss a weighted sum
 * whose normaliser covers the whole optimizer step, so micro-batches simply add up.
 */
export function packBatch(
  seqs: TrainSequence[],
  o: { rows: number; seqLen: number; pad: number; aggregation: Aggregation; stepTokens: number; stepSequences: number; normTokens?: number },
): Record<string, ort.Tensor> {
  const { rows: B, seqLen: T } = o;
  if (o.aggregation === 'token-sum-norm' && !(o.normTokens! > 0))
    throw new Error("aggregation 'token-sum-norm' needs normTokens > 0 (the constant each sequence's token sum is divided by)");
  const n = B * T;
  const tokens = new Array<number>(n).fill(o.pad);
  const targets = new Array<number>(n).fill(o.pad);
  const positions = new Array<number>(n).fill(0);
  const mask = new Float32Array(n);
  const weights = new Float32Array(n);
  const adv = new Float32Array(n);
  const oldLp = new Float32Array(n);
  const refLp = new Float32Array(n);
  const oldV = new Float32Array(n);
  const ret = new Float32Array(n);
  seqs.forEach((s, b) => {
    const len = s.tokens.length - 1;
    if (len > T) throw new Error(`sequence of ${s.tokens.length} tokens does not fit seqLen ${T}`);
    let count = 0;
    for (let t = 1; t <= len; t++) count += s.lossMask[t]!;
    for (let t = 0; t < T; t++) {
      const k = b * T + t;
      positions[k] = t;
      if (t >= len) continue;
      tokens[k] = s.tokens[t]!;
      targets[k] = s.tokens[t + 1]!;
      const m = s.lossMask[t + 1]!;
      mask[k] = m;
      weights[k] =
        o.aggregation === 'token'
          ? m / Math.max(1, o.stepTokens)
          : o.aggregation === 'token-sum-norm'
            ? m / (o.normTokens! * Math.max(1, o.stepSequences))
            : count > 0
              ? m / (count * o.stepSequences)
              : 0;
      adv[k] = typeof s.advantages === 'number' ? s.advantages : (s.advantages?.[t + 1] ?? 0);
      oldLp[k] = s.oldLogprobs?.[t + 1] ?? 0;
      refLp[k] = s.refLogprobs?.[t + 1] ?? 0;
      oldV[k] = s.oldValues?.[t + 1] ?? 0;
      ret[k] = s.returns?.[t + 1] ?? 0;
    }
  });
  const bt = [B, T];
  return {
    tokens: i64(tokens, bt),
    targets: i64(targets, bt),
    positions: i64(positions, bt),
    attn_mask: causalMask(B, T),
    mask: f32(mask, bt),
    weights: f32(weights, bt),
    advantages: f32(adv, bt),
    old_logprobs: f32(oldLp, bt),
    ref_logprobs: f32(refLp, bt),
    old_values: f32(oldV, bt),
    returns: f32(ret, bt),
  };
}
