import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { metricSamples } from '@/db/schema';
import { Policy } from '@/lib/policy/policy';
import { freshDatabase } from '@/test/database';
import { STORIES260K_DIR } from '@/test/models';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { skippedStepsEvent, summariseSteps } from './learner-steps';

const cpu = { providers: ['cpu' as const], threads: 1 };

/** Three real steps, the middle one made non-finite (value returns of 1e30 overflow the value loss). */
async function stepsWithOneSkipped() {
  const p = Policy.create({ model: { dModel: 32, nLayers: 1, nHeads: 2, dMlp: 64, maxSeqLen: 32 }, seed: 2 }, cpu);
  const tokens = ['p:abc', 'p:defg'].map((s) => p.tokenizer.encode(s, { bos: true }));
  const batch = async (ret: number) => {
    const now = await p.score(tokens);
    return tokens.map((t, i) => ({
      tokens: t,
      lossMask: t.map((_, k) => (k >= 3 ? 1 : 0)),
      advantages: t.map(() => (i ? -1 : 1)),
      oldLogprobs: now[i]!.logprobs,
      oldValues: now[i]!.values,
      returns: t.map(() => ret),
    }));
  };
  const reports = [];
  for (const ret of [0.5, 1e30, 0.5]) reports.push(await p.trainStep(await batch(ret), { kind: 'ppo' }));
  await p.release();
  return reports;
}

describe('an iteration with a skipped optimizer step', () => {
  it('keeps the non-finite loss and grad norm in the summary (not 0) and names the skipped step', async () => {
    const reports = await stepsWithOneSkipped();
    expect(reports.map((r) => r.skipped)).toEqual([false, true, false]);
    const s = summariseSteps(reports);
    expect(Number.isFinite(s.loss)).toBe(false);
    expect(Number.isFinite(s.gradNorm)).toBe(false);
    expect(s.steps).toBe(3);
    expect(s.skipped).toEqual([{ index: 1, loss: reports[1]!.loss, gradNorm: reports[1]!.gradNorm }]);
    expect(s.logprobMismatch).toBeLessThan(1e-5); // first step: the sampling weights themselves
    const ev = skippedStepsEvent(4, s)!;
    expect(ev.type).toBe('update_skipped');
    expect(ev.message).toMatch(
      /iteration 4: 1 of 3 optimizer step\(s\) skipped .*not finite .*step 2, loss (NaN|Infinity), grad norm (NaN|Infinity).*weights before each such step were kept.*lower learningRate/,
    );
    expect(ev.data.skipped).toEqual([{ step: 2, loss: String(reports[1]!.loss), gradNorm: String(reports[1]!.gradNorm) }]);
    expect(skippedStepsEvent(4, summariseSteps([reports[0]!]))).toBeNull();
  });

  it('an fp16 step whose gradients overflowed the loss scale is reported as a loss-scale backoff, with the scale', async () => {
    const t = await HfTrainer.load(STORIES260K_DIR, { lora: { rank: 2, alpha: 4, targetModules: ['q_proj'] } }, { ...cpu, precision: 'fp16' });
    try {
      const tokens = [t.model.tokenizer.encode('Lily had a red ball. She liked it.')];
      const now = await t.score(tokens);
      const seqs = tokens.map((tk) => ({ tokens: tk, lossMask: tk.map((_, k) => (k >= 3 ? 1 : 0)), advantages: 1, oldLogprobs: now[0]!.logprobs }));
      t.lossScaling = { scale: 2 ** 40, goodSteps: 0 };
      const reports = [await t.trainStep(seqs, { kind: 'grpo' })];
      reports.push(await t.trainStep(seqs, { kind: 'grpo' })); // the scale is now 2^39: overflows too
      t.lossScaling = { scale: 2 ** 10, goodSteps: 0 };
      reports.push(await t.trainStep(seqs, { kind: 'grpo' }));
      expect(reports.map((r) => [r.skipped, r.lossScale])).toEqual([
        [true, 2 ** 40],
        [true, 2 ** 39],
        [false, 2 ** 10],
      ]);
      const s = summariseSteps(reports);
      expect(s).toMatchObject({ matmuls: 'fp16-emulated', lossScale: 2 ** 10, steps: 3 });
      const ev = skippedStepsEvent(2, s)!;
      expect(ev.message).toMatch(
        /iteration 2: 2 of 3 optimizer step\(s\) skipped because fp16 gradients overflowed at loss scale 1099511627776 \(first: step 1\); the scale halves/,
      );
      expect(ev.message).not.toMatch(/lower learningRate/);
      expect(ev.data.skipped).toMatchObject([
        { step: 1, lossScale: 2 ** 40 },
        { step: 2, lossScale: 2 ** 39 },
      ]);
      // a non-finite fp16 loss is the forward overflowing, not the scale: said so
      const forward = skippedStepsEvent(2, { steps: 1, skipped: [{ index: 0, loss: Infinity, gradNorm: NaN, lossScale: 65536 }] })!;
      expect(forward.message).toMatch(/skipped because the fp16 loss was not finite .*train in bf16 or fp32/);
    } finally {
      await t.release();
    }
  });

  it('metric_samples stores NaN and ±Infinity as such', async () => {
    const { db } = await freshDatabase();
    const values = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.25];
    await db.insert(metricSamples).values(values.map((value, i) => ({ source: 'test-nonfinite', name: 'loss', step: i, value })));
    const back = await db.select().from(metricSamples).where(eq(metricSamples.source, 'test-nonfinite')).orderBy(metricSamples.step);
    expect(back.map((r) => r.value)).toEqual(values);
  });
});
