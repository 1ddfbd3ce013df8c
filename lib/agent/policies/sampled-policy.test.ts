import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { Policy } from '@/lib/policy/policy';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { runAgentEpisode } from '../episode/run-episode';
import { ByteTemplateRenderer } from '../render/byte-template';
import { resolveRepoTask } from '../workspace/resolve-task';
import { SampledAgentPolicy } from './sampled-policy';

let manager: SandboxManager;
let cleanup: () => Promise<void>;
beforeAll(() => {
  ({ manager, cleanup } = testManager('agent-onnx'));
});
afterAll(async () => cleanup?.());

describe('the ONNX byte model as an agent policy (tiny random weights)', () => {
  it('samples each turn from the exact sequence; its tokens and logprobs are the mask-1 span', async () => {
    const policy = Policy.create({ model: { dModel: 16, nLayers: 1, nHeads: 1, dMlp: 32, maxSeqLen: 3200 }, seed: 3 }, { providers: ['cpu'], threads: 1 });
    try {
      const task = {
        ...resolveRepoTask(
          crucibleRepoTaskLine.parse({
            id: 't',
            language: 'python',
            problem_statement: 'fix',
            workspace: { files: { 'a.py': 'x = 1\n' } },
            FAIL_TO_PASS: ['a.py::t'],
          }),
          { baseDir: '/tmp' },
        ),
        environment: 'default',
      };
      const r = await runAgentEpisode({
        manager,
        task,
        policy: new SampledAgentPolicy(policy, { seed: 7 }),
        renderer: new ByteTemplateRenderer(),
        limits: episodeSandboxLimits,
        maxTurns: 2,
        maxNewTokens: 24,
        tokenBudget: 3200,
      });
      // random weights write no tool call: each turn is told so, and the episode runs to max turns
      expect(r.end).toBe('max_turns');
      expect(r.turns).toHaveLength(2);
      const spans = r.sequence.spans.filter((s) => s.kind === 'assistant');
      expect(spans).toHaveLength(2);
      for (const s of spans) {
        expect(s.end - s.start).toBeGreaterThan(0);
        expect(s.end - s.start).toBeLessThanOrEqual(24);
        const lp = r.sequence.logprobs.slice(s.start, s.end);
        expect(lp.every((l) => typeof l === 'number' && l < 0)).toBe(true);
      }
      // replaying the sampler on exactly the sequence before each span gives that span: the policy saw the whole history
      for (const [i, s] of spans.entries()) {
        const [again] = await policy.sample([r.sequence.ids.slice(0, s.start)], { maxNewTokens: 24, temperature: 1, topP: 1, seed: 7 + i, eos: 257 });
        expect(again!.tokens).toEqual(r.sequence.ids.slice(s.start, s.end));
      }
      expect(r.messages.filter((m) => m.role === 'tool')[0]!.content).toMatch(/no tool call found/);
      expect(manager.stats().busy).toBe(0);
    } finally {
      await policy.release();
    }
  });
});
