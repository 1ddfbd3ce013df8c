// Dynamic loss scaling for float16 training, as PyTorch's GradScaler does it (same defaults):
// the loss is multiplied by `scale` before backward so small gradients survive float16; a
// step whose gradients overflowed is skipped and the scale halves; after `interval` clean
// steps in a row it doubles. A pure step over plain data; the trainer holds the state.

import { z } from 'zod';

export const LossScaleState = z.object({ scale: z.number().positive(), goodSteps: z.number().int().nonnegative() });
export type LossScaleState = z.infer<typeof LossScaleState>;

export const LOSS_SCALING = { init: 2 ** 16, growth: 2, backoff: 0.5, interval: 2000, min: 2 ** -24 } as const;

export function initialLossScale(): LossScaleState {
  return { scale: LOSS_SCALING.init, goodSteps: 0 };
}

/** The state after a step whose gradients were all finite (`finite`) or not (the step was skipped). */
export function nextLossScale(s: LossScaleState, finite: boolean, c: typeof LOSS_SCALING = LOSS_SCALING): LossScaleState {
  if (!finite) return { scale: Math.max(s.scale * c.backoff, c.min), goodSteps: 0 };
  const goodSteps = s.goodSteps + 1;
  return goodSteps >= c.interval ? { scale: s.scale * c.growth, goodSteps: 0 } : { scale: s.scale, goodSteps };
}
