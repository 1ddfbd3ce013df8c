import { z } from 'zod';
import type { Graph, Value } from './onnx/graph';
import * as o from './onnx/ops';

export const OptimConfig = z.object({
  lr: z.number().positive().default(3e-4),
  beta1: z.number().min(0).max(1).default(0.9),
  beta2: z.number().min(0).max(1).default(0.95),
  eps: z.number().positive().default(1e-8),
  weightDecay: z.number().min(0).default(0.1),
  maxGradNorm: z.number().positive().default(1.0),
  warmupSteps: z.number().int().min(0).default(0),
  totalSteps: z.number().int().positive().default(1000),
  /** Final LR as a fraction of the peak at the end of the cosine. */
  minLrRatio: z.number().min(0).max(1).default(0.1),
});
export type OptimConfig = z.infer<typeof OptimConfig>;
export type OptimConfigInput = z.input<typeof OptimConfig>;

/** Warmup then cosine decay, as nodes of the step number `t` (1-based, float scalar). */
export function learningRate(g: Graph, c: OptimConfig, t: Value): Value {
  return g.scope('lr', () => {
    const warm = c.warmupSteps > 0 ? o.min(o.div(t, c.warmupSteps), 1) : g.scalar(1, 'float32');
    const span = Math.max(1, c.totalSteps - c.warmupSteps);
    const progress = o.clip(o.div(o.sub(t, c.warmupSteps), span), 0, 1);
    const cosine = o.mul(o.add(o.cos(o.mul(progress, Math.PI)), 1), 0.5);
    const decay = o.add(o.mul(cosine, 1 - c.minLrRatio), c.minLrRatio);
    return o.mul(o.mul(warm, decay), c.lr);
  });
}

export type AdamState = { param: Value; m: Value; v: Value; grad: Value; decay: boolean };

/**
 * Global grad-norm clipping followed by AdamW (decoupled weight decay on matrices only).
 * Returns the updated parameter and moments for each entry plus the pre-clip grad norm.
 */
export function adamw(g: Graph, c: OptimConfig, t: Value, entries: AdamState[]) {
  return g.scope('adamw', () => {
    const sq = entries.map((e) => o.sumAll(o.mul(e.grad, e.grad)));
    const total = sq.reduce((a, b) => o.add(a, b));
    const gradNorm = o.sqrt(total);
    const scale = o.min(o.div(g.scalar(c.maxGradNorm, 'float32'), o.add(gradNorm, 1e-6)), 1);
    const lr = learningRate(g, c, t);
    const bc1 = o.rsub(1, o.pow(g.scalar(c.beta1, 'float32'), t));
    const bc2 = o.rsub(1, o.pow(g.scalar(c.beta2, 'float32'), t));
    const stepSize = o.div(lr, bc1);
    const updated = entries.map((e) =>
      g.scope(e.param.name, () => {
        const grad = o.mul(e.grad, scale);
        const m = o.add(o.mul(e.m, c.beta1), o.mul(grad, 1 - c.beta1));
        const v = o.add(o.mul(e.v, c.beta2), o.mul(o.mul(grad, grad), 1 - c.beta2));
        const denom = o.add(o.sqrt(o.div(v, bc2)), c.eps);
        let p = o.sub(e.param, o.mul(o.div(m, denom), stepSize));
        if (e.decay && c.weightDecay > 0) p = o.sub(p, o.mul(e.param, o.mul(lr, c.weightDecay)));
        return { param: p, m, v };
      }),
    );
    return { updated, gradNorm, lr };
  });
}
