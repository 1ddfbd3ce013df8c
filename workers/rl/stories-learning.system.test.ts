import { describe, expect, it } from 'vitest';
import { settings } from '@/core/settings';
import { STORIES260K_DIR } from '@/test/models';
import { runStoriesExperiment, STORIES_CONFIG } from './text-learning';

/**
 * RL improves a real pretrained model (issue 15): GRPO on stories260K over the built-in
 * "stories" text suite, then its held-out reward against v0, which is what a no-update
 * control arm (learning rate 0) holds for its whole run; the same held-out tasks and
 * sampling seeds in both arms, a one-sided sign-flip test over tasks. The full 15-minute
 * version is `npm run bench -- learning --model stories260K` (docs/rl.md). Self-check:
 * CRUCIBLE_LEARNING_TEST_LR=1e-12 trains with a learning rate that moves nothing; the test
 * must then fail.
 */
const lr = settings().CRUCIBLE_LEARNING_TEST_LR ?? STORIES_CONFIG.learningRate;

describe('RL on a pretrained model against the no-update control (stories260K, real sandboxes, ONNX on CPU)', () => {
  it('raises the held-out reward above the control, p < 0.01 over held-out tasks', async () => {
    const t0 = Date.now();
    const r = await runStoriesExperiment({
      modelDir: STORIES260K_DIR,
      minutes: 8,
      iterations: 12,
      samples: 4,
      learningRate: lr,
      log: (line) => console.log(line),
    });
    const h = r.heldout;
    console.log(
      `stories260K: ${r.iterations} iterations in ${r.wallS.toFixed(0)} s (${((Date.now() - t0) / 1000).toFixed(0)} s with held-out); held-out reward RL ${h.reward.main.toFixed(3)} vs control ${h.reward.control.toFixed(3)}, ${h.improved} tasks improved, ${h.worse} worse, p = ${h.p}`,
    );
    expect(r.iterations).toBe(12);
    expect(h.tasks).toBe(32);
    expect(h.reward.main).toBeGreaterThan(h.reward.control);
    expect(h.p).toBeLessThan(0.01);
  }, 900_000);
});
