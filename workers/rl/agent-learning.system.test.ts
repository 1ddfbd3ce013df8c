import { describe, expect, it } from 'vitest';
import { STORIES260K_DIR } from '@/test/models';
import { runAgentLearning } from './agent-learning';

/**
 * The short version of `npm run bench -- agent-learning` (issue 35 §5; the full run and its
 * numbers: docs/rl.md "An agent that acts"). Real Postgres, bwrap sandboxes, the real grader,
 * ONNX on CPU: gold trajectories of two built-in repository tasks played in stories260K's
 * chat template, graded, stored and exported; SFT on the export; the tuned model registered
 * and trained by one GRPO iteration; then RL's version, v0 (the control) and the model before
 * SFT played on the same seeds. What it can show in CI time is that SFT on exported gold
 * trajectories makes the model speak the tool protocol (the chat model before it makes no
 * valid call), and that the run records the agent metrics; whether RL then beats the control
 * needs the full bench's iterations. The valid-call assertion is its own self-check: the same
 * measure on the model before SFT must be 0 (it is: it writes stories).
 */
describe('an agent that acts: SFT on exported gold trajectories, then agent RL (stories260K, short)', () => {
  it('the SFT model makes valid tool calls the base model does not, and one RL iteration records solved_rate and valid calls', async () => {
    const r = await runAgentLearning({
      modelDir: STORIES260K_DIR,
      trainTasks: 2,
      heldoutTasks: 1,
      sftSteps: 100,
      sftLr: 5e-3,
      minutes: 10,
      iterations: 1,
      samples: 2,
      groupSize: 2,
      log: (line) => console.log(line),
    });
    expect(r.trainTasks).toEqual(['js-md-table-escape-pipes', 'js-semver-sort-numeric']);
    expect(r.gold).toMatchObject({ episodes: 2, resolved: 2 });
    expect(r.sft.lossLast).toBeLessThan(r.sft.lossFirst / 10);
    // before SFT: stories, never a tool call; after: the protocol, whatever the edits' quality
    expect(r.base.validToolCallsPerTurn).toBe(0);
    expect(r.heldIn.validToolCallsPerTurn.control).toBeGreaterThan(0);
    expect(r.rl.iterations).toBe(1);
    expect(r.rl.solvedCurve).toHaveLength(1);
    expect(r.rl.validCallsCurve).toHaveLength(1);
    for (const c of [r.heldIn, r.heldOut]) {
      expect(c.mcnemar.p).toBeGreaterThanOrEqual(0);
      expect(c.mcnemar.p).toBeLessThanOrEqual(1);
      expect(c.solved.main).toBeGreaterThanOrEqual(0);
    }
  }, 900_000);
});
