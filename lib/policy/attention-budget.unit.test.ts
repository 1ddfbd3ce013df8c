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

describe('paddingMultiple: padded lengths of long batches', () => {
  it('16 up to 512 tokens, then an eighth of the power of two below: at most 12.5% padding, few shapes', async () => {
    const { paddingMultiple } = await import('./hf/hf-trainer');
    const { paddedLength } = await import('./batch');
    expect([1, 256, 512, 513, 1023, 1024, 2047, 2048, 4096].map(paddingMultiple)).toEqual([16, 16, 16, 64, 64, 128, 128, 256, 512]);
    const shapes = new Set<number>();
    for (let n = 700; n <= 2048; n++) {
      const T = paddedLength(n, paddingMultiple(n));
      expect(T).toBeGreaterThanOrEqual(n - 1);
      expect(T).toBeLessThanOrEqual((n - 1) * 1.125 + 16);
      shapes.add(T);
    }
    expect(shapes.size).toBeLessThanOrEqual(16);
  });
});
