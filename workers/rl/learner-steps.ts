import type { StepReport } from '@/lib/policy/policy';

// What an iteration's optimizer steps add up to, and how a skipped (non-finite) step is
// reported: as the NaN/Infinity it was, never as 0.

/** A skipped step; `lossScale` when it trained in fp16 (its gradients may have overflowed the scale). */
export type SkippedStep = { index: number; loss: number; gradNorm: number; lossScale?: number };

export type StepsSummary = {
  loss: number;
  kl: number;
  entropy: number;
  clipFraction: number;
  dualClipFraction: number;
  gradNorm: number;
  /** The first step's mean |log π − log π_old|: its weights sampled the batch, so this should be ~0. */
  logprobMismatch: number;
  steps: number;
  skipped: SkippedStep[];
  /** What the matrix products ran in (Hugging Face models: `fp32`, `bf16`, `fp16-emulated`, …). */
  matmuls?: string;
  /** fp16: the loss scale the last step used (halved after it when that step overflowed). */
  lossScale?: number;
};

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Means over the steps; a non-finite step makes the mean non-finite, as it should look. */
export function summariseSteps(reports: StepReport[]): StepsSummary {
  if (!reports.length) throw new Error('summariseSteps needs at least one step report');
  const avg = (k: 'loss' | 'kl' | 'entropy' | 'clipFraction' | 'dualClipFraction' | 'gradNorm') => mean(reports.map((r) => r[k]));
  return {
    loss: avg('loss'),
    kl: avg('kl'),
    entropy: avg('entropy'),
    clipFraction: avg('clipFraction'),
    dualClipFraction: avg('dualClipFraction'),
    gradNorm: avg('gradNorm'),
    logprobMismatch: reports[0]!.logRatioAbs,
    steps: reports.length,
    skipped: reports.flatMap((r, index) =>
      r.skipped ? [{ index, loss: r.loss, gradNorm: r.gradNorm, ...(r.lossScale !== undefined ? { lossScale: r.lossScale } : {}) }] : [],
    ),
    ...(reports.at(-1)!.matmuls ? { matmuls: reports.at(-1)!.matmuls } : {}),
    ...(reports.at(-1)!.lossScale !== undefined ? { lossScale: reports.at(-1)!.lossScale } : {}),
  };
}

/** The run event for skipped steps (null when none was): what happened and what to do. */
export function skippedStepsEvent(
  iteration: number,
  s: Pick<StepsSummary, 'steps' | 'skipped'>,
): { type: string; message: string; data: Record<string, unknown> } | null {
  if (!s.skipped.length) return null;
  const first = s.skipped[0]!;
  const data = {
    iteration,
    steps: s.steps,
    skipped: s.skipped.map((k) => ({ step: k.index + 1, loss: String(k.loss), gradNorm: String(k.gradNorm), lossScale: k.lossScale })),
  };
  const fp16 = s.skipped.every((k) => k.lossScale !== undefined);
  // fp16 with a finite loss: the gradients overflowed the loss scale, which then halved (loss-scaler.ts)
  if (fp16 && s.skipped.every((k) => Number.isFinite(k.loss)))
    return {
      type: 'update_skipped',
      message:
        `iteration ${iteration}: ${s.skipped.length} of ${s.steps} optimizer step(s) skipped because fp16 gradients overflowed at loss scale ${first.lossScale} ` +
        `(first: step ${first.index + 1}); the scale halves after each such step, and the weights before it were kept. ` +
        'A few while the scale settles are expected; if it keeps happening, train in bf16.',
      data,
    };
  // fp16 with a non-finite loss: the forward pass itself overflowed, which no loss scale fixes
  if (fp16)
    return {
      type: 'update_skipped',
      message:
        `iteration ${iteration}: ${s.skipped.length} of ${s.steps} optimizer step(s) skipped because the fp16 loss was not finite ` +
        `(first: step ${first.index + 1}, loss ${first.loss}); the weights before each such step were kept. ` +
        "fp16's range is small: if this repeats, train in bf16 or fp32, or lower learningRate.",
      data,
    };
  return {
    type: 'update_skipped',
    message:
      `iteration ${iteration}: ${s.skipped.length} of ${s.steps} optimizer step(s) skipped because the loss or gradient norm was not finite ` +
      `(first: step ${first.index + 1}, loss ${first.loss}, grad norm ${first.gradNorm}); the weights before each such step were kept. ` +
      "If this repeats, lower learningRate or check this iteration's rewards and advantages.",
    // JSON has no NaN/Infinity: the values go as strings.
    data,
  };
}
