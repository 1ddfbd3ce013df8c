import { describe, expect, it } from 'vitest';
import { scoreInChunks, trainMicroBatch } from './attention-budget';

// A stand-in for Policy.score that records the batches it was given (the real one is exercised by
// workers/rl/agent-loop.test.ts); each result names its sequence, so order is checked.
function recorder() {
  const calls: number[][][] = [];
  const policy = {
    score: async (seqs: number[][]) => {
      calls.push(seqs);
      return seqs.map((s) => ({ logprobs: [s[0]!], entropy: [], values: [] }));
    },
  };
  return { calls, policy };
}
const seqs = (n: number, len: number) => Array.from({ length: n }, (_, i) => Array.from({ length: len }, () => i));

describe('attention budget: long agent episodes are scored and trained in pieces, short turns as before', () => {
  it('short input/output turns: one scoring call, micro-batches of 16', async () => {
    const { calls, policy } = recorder();
    await scoreInChunks(policy, seqs(192, 256));
    expect(calls.map((c) => c.length)).toEqual([192]);
    expect(trainMicroBatch(40)).toBe(16);
    expect(trainMicroBatch(256)).toBe(16);
  });

  it('4096-token episodes: one per scoring call and per micro-batch, results in order', async () => {
    const { calls, policy } = recorder();
    const out = await scoreInChunks(policy, seqs(5, 4096));
    expect(calls.map((c) => c.length)).toEqual([1, 1, 1, 1, 1]);
    expect(out.map((r) => r.logprobs[0])).toEqual([0, 1, 2, 3, 4]);
    expect(trainMicroBatch(4096)).toBe(1);
    const mid = recorder();
    await scoreInChunks(mid.policy, seqs(9, 2048));
    expect(mid.calls.map((c) => c.length)).toEqual([4, 4, 1]);
  });
});
