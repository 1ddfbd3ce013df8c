import { describe, expect, it } from 'vitest';
import { formatLlamaBench, runLlamaBench } from '@/bench/llama';

// Smoke check of `npm run bench -- llama` (the full bench is not in CI: minutes of CPU).
// Both sides really run: ours in a tsx child (HfPolicy with the KV cache), PyTorch in
// llama_sample_torch.py; their greedy tokens must agree, which also checks the torch cache.
describe('llama bench', () => {
  it('samples stories260K at batch 1 on both sides and reports a well-formed result', async () => {
    const r = await runLlamaBench({
      models: ['stories260K'],
      threads: 1,
      batches: [1],
      newTokens: 6,
      reps: 1,
      trainSteps: 1,
      trainReps: 1,
      train: false,
      torchWithoutOpenBlas: true,
    });
    expect(r.torchSkipped).toBeNull();
    const m = r.models[0]!;
    expect(m.model).toBe('stories260K');
    expect(m.params).toBe(260_032);
    expect(m.sampling).toHaveLength(1);
    const s = m.sampling[0]!;
    expect(s.batch).toBe(1);
    expect(s.tokens).toBeGreaterThan(0);
    for (const side of [s.ours, s.torch!]) {
      expect(side.tokensPerSecond).toBeGreaterThan(0);
      expect(side.tokensPerCpuSecond).toBeGreaterThan(0);
      expect(side.peakRssMiB).toBeGreaterThan(20);
    }
    expect(s.ratio!.wall).toBeCloseTo(s.ours.tokensPerSecond / s.torch!.tokensPerSecond);
    expect(m.greedyAgreement).toEqual({ sameTokens: s.tokens, of: s.tokens });
    expect(formatLlamaBench(r)).toContain('| stories260K (0.26M) | sample batch 1 |');
  }, 60_000);
});
