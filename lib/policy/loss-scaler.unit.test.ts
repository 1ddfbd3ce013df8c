import { describe, expect, it } from 'vitest';
import { initialLossScale, LOSS_SCALING, nextLossScale } from './loss-scaler';

describe('dynamic loss scaling (GradScaler semantics)', () => {
  it('starts at 2^16, halves on overflow and resets the count, doubles after 2000 clean steps', () => {
    let s = initialLossScale();
    expect(s).toEqual({ scale: 65536, goodSteps: 0 });
    s = nextLossScale(s, true);
    expect(s).toEqual({ scale: 65536, goodSteps: 1 });
    s = nextLossScale(s, false);
    expect(s).toEqual({ scale: 32768, goodSteps: 0 });
    for (let i = 0; i < LOSS_SCALING.interval - 1; i++) s = nextLossScale(s, true);
    expect(s).toEqual({ scale: 32768, goodSteps: LOSS_SCALING.interval - 1 });
    s = nextLossScale(s, true);
    expect(s).toEqual({ scale: 65536, goodSteps: 0 });
  });

  it('never backs off below the smallest float16 subnormal', () => {
    let s = { scale: 2 ** -23, goodSteps: 3 };
    s = nextLossScale(s, false);
    s = nextLossScale(s, false);
    expect(s.scale).toBe(2 ** -24);
  });
});
