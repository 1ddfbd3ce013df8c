/**
 * An episode as one token sequence: every message's tokens appended as the episode goes,
 * never re-tokenized. `lossMask` is 1 exactly on the tokens the policy sampled;
 * `logprobs` holds the sampler's logprob for those (null elsewhere); `spans` says which
 * message each range came from (for display and checks).
 */
export type SpanKind = 'prompt' | 'assistant' | 'environment';

export type TokenSequence = {
  ids: number[];
  lossMask: (0 | 1)[];
  logprobs: (number | null)[];
  spans: { kind: SpanKind; start: number; end: number }[];
};

export const emptySequence = (): TokenSequence => ({ ids: [], lossMask: [], logprobs: [], spans: [] });

export function appendTokens(seq: TokenSequence, kind: SpanKind, ids: number[], logprobs?: number[]): void {
  if (logprobs && logprobs.length !== ids.length) throw new Error(`${ids.length} tokens but ${logprobs.length} logprobs`);
  const start = seq.ids.length;
  const policy = kind === 'assistant';
  for (let i = 0; i < ids.length; i++) {
    seq.ids.push(ids[i]!);
    seq.lossMask.push(policy ? 1 : 0);
    seq.logprobs.push(policy ? (logprobs?.[i] ?? null) : null);
  }
  seq.spans.push({ kind, start, end: seq.ids.length });
}
