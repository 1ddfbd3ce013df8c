import type { RunConfig } from '@/core/run-config';
import type { TrainSequence } from '@/lib/policy/batch';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { lossConfigFor } from '../learner-batch';
import { summariseSteps } from '../learner-steps';
import { prng } from '@/core/random';
import { shuffle } from '../schedule';
import { trainMicroBatch } from '@/lib/policy/attention-budget';

/**
 * The iteration's optimizer steps: `updateEpochs` passes over the batch, each split into
 * `miniBatches` seeded-shuffled minibatches (one AdamW step each, micro-batches of 16
 * accumulated inside; fewer rows for long sequences such as agent episodes, lib/policy/attention-budget.ts). The first step is on-policy (ratio 1); later ones are where the
 * clip ratios bite. Reports the mean of each metric over the steps. `normTokens` is the
 * per-turn token budget (the 'token-sum-norm' aggregation divides by it).
 */
export async function learnerUpdates(policy: RlPolicy, batch: TrainSequence[], config: RunConfig, iteration: number, o: { normTokens: number }) {
  const rand = prng(config.seed * 104_729 + iteration);
  const loss = lossConfigFor(config, { normTokens: o.normTokens });
  const reports: Awaited<ReturnType<RlPolicy['trainStep']>>[] = [];
  const microBatchSize = trainMicroBatch(Math.max(1, ...batch.map((q) => q.tokens.length)));
  for (let epoch = 0; epoch < config.updateEpochs; epoch++) {
    const order = shuffle(
      batch.map((_, i) => i),
      rand,
    );
    const parts = Math.min(config.miniBatches, order.length);
    for (let m = 0; m < parts; m++) {
      const part = order.filter((_, i) => i % parts === m).map((i) => batch[i]!);
      reports.push(await policy.trainStep(part, loss, { microBatchSize }));
    }
  }
  return { ...summariseSteps(reports), provider: reports.at(-1)!.provider, sequences: batch.length };
}
