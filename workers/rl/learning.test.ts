import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSamples } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { inProcessRl, untilRun } from './test-support';

// The first iterations of the 15-minute run in docs/rl.md (same seed and config; held-out
// evaluation cut to 4 tasks, which does not touch the training RNG streams).
const rl = await inProcessRl('learning', { CRUCIBLE_RL_SFT_STEPS: '400', CRUCIBLE_RL_HELDOUT_LIMIT: '4', CRUCIBLE_RL_PASS_K: '0' });
const { db } = rl;
beforeAll(() => rl.start());
afterAll(() => rl.stop());

describe('RL learning on the built-in suite (real sandboxes, ONNX policy on CPU)', () => {
  it('with a fixed seed, the training reward rises over six iterations', async () => {
    const config = {
      seed: 1, iterations: 6, tasksPerIteration: 16, groupSize: 8, maxTurns: 2, concurrency: 2,
      learningRate: 5e-4, klCoef: 0, negativeAdvantageWeight: 0.2, updateEpochs: 2, miniBatches: 2,
    };
    const run = await createRun(db, { name: 'learning', config }, 'test');
    const done = await untilRun(db, run.id, 'the run to finish', (r) => r.status === 'completed' || r.status === 'failed', 540_000);
    expect(done.status).toBe('completed');
    const reward = (await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id)).orderBy(asc(metricSamples.step)))
      .filter((m) => m.name === 'reward_mean').map((m) => m.value);
    console.log(`reward_mean by iteration: ${reward.map((x) => x.toFixed(3)).join(' ')}`);
    expect(reward).toHaveLength(6);
    // 128 episodes an iteration: the mean of the last two iterations beats the first two
    const head = (reward[0]! + reward[1]!) / 2;
    const tail = (reward[4]! + reward[5]!) / 2;
    expect(tail).toBeGreaterThan(head + 0.05);
  }, 600_000);
});
