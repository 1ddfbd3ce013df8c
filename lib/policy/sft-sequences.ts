import { z } from 'zod';
import { Rng } from '@/core/random';
import { trainMicroBatch } from './attention-budget';

/**
 * Supervised fine-tuning of a policy (the byte model or a Hugging Face model) on token sequences with a loss mask: the
 * rejection-sampling SFT recipe (SWE-Gym, R2E-Gym) on exported trajectories, whose token view
 * has mask 1 exactly on the assistant's sampled tokens, so the loss falls on those alone.
 * The sequences are used as they are, never re-tokenized (they must come from this model's
 * tokenizer: an id past its vocabulary is refused, naming the record).
 */
export const SftRecord = z.object({
  tokens: z.object({ ids: z.array(z.number().int().min(0)).min(2), loss_mask: z.array(z.union([z.literal(0), z.literal(1)])) }),
});

export type SftSequence = { tokens: number[]; lossMask: number[] };

/** Exported episodes (JSONL lines) as training sequences, each checked against the model. */
export function sftSequences(lines: string[], model: { vocabSize: number; maxPositionEmbeddings: number }, where = 'line'): SftSequence[] {
  const out: SftSequence[] = [];
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new Error(`${where} ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    const r = SftRecord.safeParse(value);
    if (!r.success)
      throw new Error(
        `${where} ${i + 1}: expected an exported episode with tokens.ids and tokens.loss_mask (${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message})`,
      );
    const { ids, loss_mask } = r.data.tokens;
    if (loss_mask.length !== ids.length) throw new Error(`${where} ${i + 1}: ${ids.length} token ids but ${loss_mask.length} loss_mask entries`);
    const bad = ids.find((t) => t >= model.vocabSize);
    if (bad !== undefined)
      throw new Error(
        `${where} ${i + 1}: token id ${bad} is past this model's vocabulary (${model.vocabSize}): the episode was sampled with another tokenizer`,
      );
    if (ids.length > model.maxPositionEmbeddings)
      throw new Error(`${where} ${i + 1}: ${ids.length} tokens, more than the model's context (${model.maxPositionEmbeddings})`);
    if (!loss_mask.includes(1)) return; // nothing the model said: nothing to learn
    out.push({ tokens: ids, lossMask: loss_mask });
  });
  return out;
}

/**
 * `steps` optimizer steps on batches drawn with a seeded generator; the loss of each step.
 * Micro-batches default to what the attention budget allows for the longest sequence
 * (./attention-budget.ts, as the RL learner sizes them): four agent episodes of a thousand
 * tokens in one pass would need several GB of attention alone.
 */
export async function sftSteps(
  trainer: { trainStep(batch: SftSequence[], loss: { kind: 'sft' }, o: { microBatchSize?: number }): Promise<{ loss: number }> },
  seqs: SftSequence[],
  o: { steps: number; batch: number; seed: number; microBatchSize?: number },
) {
  if (!seqs.length) throw new Error('no sequence with assistant tokens (loss_mask 1) to train on');
  const rng = new Rng(o.seed);
  const losses: number[] = [];
  const microBatchSize = o.microBatchSize ?? trainMicroBatch(Math.max(...seqs.map((q) => q.tokens.length)));
  for (let i = 0; i < o.steps; i++) {
    const batch = Array.from({ length: Math.min(o.batch, seqs.length) }, () => rng.pick(seqs));
    losses.push((await trainer.trainStep(batch, { kind: 'sft' }, { microBatchSize })).loss);
  }
  return losses;
}
