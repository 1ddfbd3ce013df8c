import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, metricSamples, policyVersions, rewards, turns } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { builtinSuite } from '@/server/tasks/builtin';
import { saveSuite } from '@/server/tasks/service';
import { inProcessRl, untilRun } from './rl.testkit';

const logs: string[] = [];
const rl = await inProcessRl(
  'loop',
  {
    CRUCIBLE_RL_SFT_STEPS: '150',
    CRUCIBLE_RL_HELDOUT_LIMIT: '4',
    CRUCIBLE_RL_PASS_K: '2',
    CRUCIBLE_RL_PASS_K_EVERY: '3',
    CRUCIBLE_RL_MAX_NEW_TOKENS: '24',
  },
  { log: (m) => logs.push(m) },
);
const { db } = rl;
beforeAll(async () => {
  // Python arithmetic families of the built-in suite: add_k, times_k, minus_k.
  const arith = builtinSuite().filter((t) => t.language === 'python' && /^py\/(add|times|minus)_\d+$/.test(t.externalId));
  await saveSuite(db, { name: 'arith', source: 'test: built-in python arithmetic' }, arith, 'test');
  rl.start();
});
afterAll(() => rl.stop());

describe('RL loop end to end (real Postgres, bwrap sandboxes, ONNX policy on CPU)', () => {
  it('trains with a fixed seed, storing turns, rewards with provenance, policy versions and metrics', async () => {
    const iterations = 3;
    const perIteration = 12;
    // temperature 0.8: the stored logprobs, the loss and the reference must all be tempered alike
    const config = {
      seed: 5,
      suite: 'arith',
      iterations,
      tasksPerIteration: 3,
      groupSize: 4,
      maxTurns: 2,
      concurrency: 2,
      learningRate: 1e-3,
      klCoef: 0.01,
      updateEpochs: 2,
      miniBatches: 2,
      temperature: 0.8,
    };
    const run = await createRun(db, { name: 'rises', config }, 'test');
    const done = await untilRun(
      db,
      run.id,
      'the run to finish',
      (r) => r.status === 'completed' || r.status === 'failed',
      280_000,
      () => logs.slice(-5).join(' | '),
    );
    expect(done.status).toBe('completed');
    expect(done.currentIteration).toBe(iterations);

    const m = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id)).orderBy(asc(metricSamples.step));
    const series = (name: string) => m.filter((x) => x.name === name).map((x) => x.value);
    const reward = series('reward_mean');
    console.log(
      `reward_mean ${reward.map((x) => x.toFixed(3)).join(' ')}; heldout pass@1 ${series('heldout_pass_at_1')
        .map((x) => x.toFixed(2))
        .join(' ')}; pass@k ${series('heldout_pass_at_k')
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    expect(reward).toHaveLength(iterations);
    expect(series('heldout_pass_at_1')).toHaveLength(iterations + 1); // v0 and after each update

    for (const k of [
      'reward_mean',
      'reward_std',
      'heldout_pass_at_1',
      'heldout_pass_at_k',
      'kl',
      'entropy',
      'clip_fraction',
      'infra_failed_rate',
      'zero_variance_group_share',
      'pass_rate',
      'style',
      'efficiency',
      'tokens_per_s',
      'generated_tokens',
      'optimizer_steps',
    ]) {
      expect(new Set(m.map((x) => x.name))).toContain(k);
    }
    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(iterations * perIteration);
    expect(eps.map((e) => [e.status, e.runtime, /^sha256:[0-9a-f]{64}$/.test(e.envHash ?? '')])).toEqual(eps.map(() => ['scored', 'bwrap', true]));
    const ts = await db.select().from(turns).innerJoin(episodes, eq(episodes.id, turns.episodeId)).where(eq(episodes.runId, run.id));
    expect(ts.length).toBeGreaterThanOrEqual(eps.length);
    for (const { turns: t } of ts) {
      // exact token ids with a loss mask: observation/prompt tokens 0, the policy's tokens 1
      expect(t.tokenIds!.length).toBe(t.lossMask!.length);
      expect(t.logprobs!.length).toBe(t.tokenIds!.length);
      expect(t.lossMask![0]).toBe(0);
      expect(t.lossMask!.at(-1)).toBe(1);
      expect(t.execStatus).toBeTruthy();
    }
    // a second turn's prompt carries the first turn's code and feedback
    const second = ts.find(({ turns: t }) => t.index === 1);
    if (second) expect(second.episodes.turnsCount).toBeGreaterThanOrEqual(2);
    // the learner really trained: some iteration had groups with differing rewards and took optimizer steps
    expect(Math.max(...series('trained_sequences'))).toBeGreaterThan(0);
    expect(Math.max(...series('optimizer_steps'))).toBe(4);
    // each iteration's first step ran on the weights that sampled: ratio 1, nothing skipped
    console.log(
      `logprob_mismatch ${series('logprob_mismatch')
        .map((x) => x.toExponential(1))
        .join(' ')}`,
    );
    expect(series('logprob_mismatch').length).toBeGreaterThan(0);
    expect(Math.max(...series('logprob_mismatch'))).toBeLessThan(1e-4);
    expect(series('skipped_updates')).toEqual(series('skipped_updates').map(() => 0));
    // every reward records the environment hash, harness version and the policy version that earned it
    const rs = await db
      .select({ r: rewards, v: policyVersions.version, it: episodes.iteration })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .innerJoin(policyVersions, eq(policyVersions.id, rewards.policyVersionId))
      .where(and(eq(episodes.runId, run.id)));
    expect(rs).toHaveLength(iterations * perIteration);
    expect(rs.every(({ r, v, it }) => v === it && /^sha256:[0-9a-f]{64}$/.test(r.envHash) && r.harnessVersion)).toBe(true);
    const [{ n } = { n: 0 }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(policyVersions)
      .where(eq(policyVersions.runId, run.id));
    expect(n).toBe(iterations + 1);
  }, 300_000);
});
