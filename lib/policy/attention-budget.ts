import type { RlPolicy } from './rl-policy';

// Attention costs batch × T² per head and layer. Input/output turns are short (T ≤ 256), but an
// agent episode is one sequence of up to agentTokenBudget tokens (4096 by default), where one
// batch of a whole iteration would need tens of GB. These keep each session run near what the
// short turns always used, and leave short-sequence batches exactly as they were.

/** Attention elements (per head and layer) one scoring call may hold: 256 sequences of 256 tokens. */
export const SCORE_ATTENTION_BUDGET = 256 * 256 * 256;
/** ... and one training micro-batch: 16 sequences of 256 tokens (the learner's micro-batch of 16). */
export const TRAIN_ATTENTION_BUDGET = 16 * 256 * 256;

const longest = (seqs: number[][]) => Math.max(1, ...seqs.map((s) => s.length));

/** Rows per training micro-batch for sequences up to `maxTokens` long: 16 for short turns, fewer (at least 1) for long ones. */
export const trainMicroBatch = (maxTokens: number) => Math.max(1, Math.min(16, Math.floor(TRAIN_ATTENTION_BUDGET / (maxTokens * maxTokens))));

/** `policy.score` over `sequences`, in as few calls as fit the budget (one call for short sequences), results in order. */
export async function scoreInChunks<P extends Pick<RlPolicy, 'score'>>(
  policy: P,
  sequences: number[][],
  o: Parameters<RlPolicy['score']>[1] = {},
): Promise<Awaited<ReturnType<P['score']>>> {
  const T = longest(sequences);
  const rows = sequences.length * T * T <= SCORE_ATTENTION_BUDGET ? sequences.length : Math.max(1, Math.floor(SCORE_ATTENTION_BUDGET / (T * T)));
  const out = [] as unknown as Awaited<ReturnType<P['score']>>;
  for (let i = 0; i < sequences.length; i += rows) out.push(...(await policy.score(sequences.slice(i, i + rows), o)));
  return out;
}
