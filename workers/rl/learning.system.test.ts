import { settings } from '@/core/settings';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyVersions, runs } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { readCheckpoint } from '@/lib/policy/checkpoint';
import { comparePairs, pairedOutcomes } from './paired';
import { EDGE_TASKS, LEARNING_CONFIG, formatReport } from './learning-setup';
import { inProcessRl, untilRun } from './rl.testkit';

/**
 * Learning, measured against a control: the same run twice from the same v0 (same SFT warm
 * start), on the same tasks with the same sampling seeds, once with updates and once with
 * learning rate 0. Only the update differs, so episode slot by episode slot the arms are a
 * matched pair, and an exact one-sided McNemar test says whether RL beat "no learning".
 * Setup and why: docs/rl.md, "Learning". Self-check: CRUCIBLE_LEARNING_TEST_LR=1e-12 runs the
 * main arm with a learning rate that moves nothing; the test must then fail.
 */
const lr = settings().CRUCIBLE_LEARNING_TEST_LR ?? LEARNING_CONFIG.learningRate;
// held-out is reported by the bench, not asserted here: evaluate just one task per iteration
const rl = await inProcessRl('learning', { CRUCIBLE_RL_SFT_STEPS: '400', CRUCIBLE_RL_HELDOUT_LIMIT: '1', CRUCIBLE_RL_PASS_K: '0' });
const { db } = rl;
beforeAll(() => rl.start());
afterAll(() => rl.stop());

const weights = async (runId: string, version: number) => {
  const [v] = await db
    .select()
    .from(policyVersions)
    .where(and(eq(policyVersions.runId, runId), eq(policyVersions.version, version)));
  if (!v) throw new Error(`run ${runId} has no policy version ${version}`);
  const { state } = await readCheckpoint(await rl.artifacts.fetch(v.sha256));
  // parameters only: the optimizer moments and header differ by design (a control arm never steps)
  return [...state.tensors].filter(([name]) => !/^(m|v)\./.test(name));
};
const sameWeights = (a: [string, { data: Float32Array }][], b: [string, { data: Float32Array }][]) =>
  a.length === b.length &&
  a.every(
    ([name, t], i) =>
      b[i]![0] === name &&
      Buffer.compare(
        Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength),
        Buffer.from(b[i]![1].data.buffer, b[i]![1].data.byteOffset, b[i]![1].data.byteLength),
      ) === 0,
  );

describe('RL learning against a no-update control arm (real sandboxes, ONNX policy on CPU)', () => {
  it('RL solves more of the curriculum than the same policy without updates, p < 0.01 (paired, same seeds)', async () => {
    const config = { ...LEARNING_CONFIG, learningRate: lr };
    const main = await createRun(db, { name: 'learning', config, controlArm: true }, 'test');
    const controlId = main.controlRunId!;
    const ended = (r: { status: string }) => ['completed', 'failed', 'cancelled'].includes(r.status);
    // progress in the CI log: a slow host shows where the time went before any timeout
    const t0 = Date.now();
    const progress = setInterval(
      () =>
        void db
          .select({ name: runs.name, it: runs.currentIteration, done: runs.episodesDone })
          .from(runs)
          .then((rs) =>
            console.log(`${Math.round((Date.now() - t0) / 1000)} s: ${rs.map((r) => `${r.name} iteration ${r.it}, ${r.done} episodes`).join('; ')}`),
          ),
      30_000,
    );
    const [m, c] = await Promise.all([
      untilRun(db, main.id, 'the RL arm to finish', ended, 840_000),
      untilRun(db, controlId, 'the control arm to finish', ended, 840_000),
    ]).finally(() => clearInterval(progress));
    expect([m.status, m.error, c.status, c.error]).toEqual(['completed', null, 'completed', null]);
    const [control] = await db.select().from(runs).where(eq(runs.id, controlId));
    expect(control!.controlOf).toBe(main.id);

    // The only difference is the update: same start, and the control never moved from it.
    expect(sameWeights(await weights(main.id, 0), await weights(controlId, 0)), 'the arms must start from identical v0 weights').toBe(true);
    expect(
      sameWeights(await weights(controlId, 0), await weights(controlId, config.iterations)),
      'the control arm (learning rate 0) must keep its v0 weights',
    ).toBe(true);

    // Iteration 0 is sampled by v0 in both arms (identical by construction); compare from 1 on.
    const { pairs, iterations, dropped } = await pairedOutcomes(db, main.id, controlId, { fromIteration: 1 });
    expect(iterations).toBe(config.iterations);
    const report = comparePairs(pairs);
    console.log(
      `learning vs control (lr ${lr}, curriculum ${EDGE_TASKS.length} tasks, iterations 1–${iterations - 1}, ${dropped} infra-dropped pairs):\n${formatReport(report)}`,
    );
    expect(pairs.length).toBeGreaterThanOrEqual(0.95 * (iterations - 1) * config.tasksPerIteration * config.groupSize);
    expect(report.solved.main, 'RL must solve more of the curriculum than the no-update control').toBeGreaterThan(report.solved.control);
    expect(report.mcnemar.p, `one-sided exact McNemar: RL-only ${report.mcnemar.b} vs control-only ${report.mcnemar.c} solved`).toBeLessThan(0.01);
  }, 900_000);
});
