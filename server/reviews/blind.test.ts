import { TRPCError } from '@trpc/server';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { episodes, metricSamples, policyVersions, reviews, runEvents, runs, turns } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { seedEpisode, seedRun } from '@/test/seed';
import type { EpisodeGrading } from '@/core/repo-tasks';
import { SAMPLE_REASON_WITHHELD } from './blind';
import { sampleForReview } from './sampler';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const reviewCfg = (o: { blind?: boolean; doubleReviewShare?: number } = {}) => ({
  review: { rate: 1, doubleReviewShare: o.doubleReviewShare ?? 0, blind: o.blind ?? true, disputed: 'exclude' as const, thresholds: [0.5] },
});

/** A run with one sampled episode whose reward, components and policy are easy to spot in JSON. */
async function blindEpisode(o: { blind?: boolean; doubleReviewShare?: number } = {}) {
  const name = `secret-run-${Math.random().toString(36).slice(2, 7)}`;
  const { run, tasks } = await seedRun(database.db, { name, config: reviewCfg(o) });
  const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 0.3141, { passRate: 0.2718 });
  const [pv] = await database.db
    .insert(policyVersions)
    .values({ runId: run.id, version: 7321, checkpointPath: '/ckpt/secret-policy.onnx', sha256: 'f'.repeat(64) })
    .returning();
  await database.db.update(episodes).set({ policyVersionId: pv!.id }).where(eq(episodes.id, ep.id));
  await sampleForReview(database.db, ep.id);
  return { run, episode: ep, policy: pv! };
}

/** Every string that would lead a reviewer to the reward, the run or the policy. */
const secretsOf = (s: Awaited<ReturnType<typeof blindEpisode>>) => [
  s.episode.id,
  s.run.id,
  s.run.name,
  '0.3141',
  '0.2718',
  s.policy.id,
  '7321',
  'secret-policy',
  s.policy.sha256,
];

function expectNoSecrets(payload: unknown, secrets: string[], what: string) {
  const json = JSON.stringify(payload);
  for (const secret of secrets) expect(json.includes(secret), `${what} contains ${secret}: ${json.slice(0, 400)}`).toBe(false);
}

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

describe('blind review is blind', () => {
  it("a blind item's payload (item, history, diagnosis, queue) holds nothing that leads to the reward, the run or the policy", async () => {
    const s = await blindEpisode();
    // the feedback the policy saw carries the pass count (the reward's main part)
    await database.db.update(turns).set({ observation: '27/100 passed; secret-observation' }).where(eq(turns.episodeId, s.episode.id));
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    const item = await rev.reviews.item({ id: id! });
    expect(item).toMatchObject({
      blind: true,
      revealed: false,
      episodeId: null,
      runId: null,
      runName: null,
      reward: null,
      components: null,
      policyVersion: null,
    });
    expect(item.turns.length).toBeGreaterThan(0); // what the reviewer judges is still there
    expectNoSecrets(item, [...secretsOf(s), 'secret-observation', '27/100'], 'reviews.item');
    expectNoSecrets(await rev.reviews.history({ id: id! }), secretsOf(s), 'reviews.history');
    expectNoSecrets(await rev.reviews.diagnosis({ id: id! }), secretsOf(s), 'reviews.diagnosis');
    for (const state of ['open', 'all'] as const) {
      const q = await rev.reviews.queue({ state });
      expect(q.items.some((i) => i.id === id)).toBe(true);
      expectNoSecrets(q, secretsOf(s), `reviews.queue(${state})`);
    }
    // Another reviewer browsing the queue cannot note the episode before claiming it either.
    expectNoSecrets(await (await callerAs(database.db, 'reviewer')).reviews.queue({ state: 'all' }), secretsOf(s), 'reviews.queue (other reviewer)');

    // After the verdict everything is shown, as before.
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect(await rev.reviews.item({ id: id! })).toMatchObject({
      revealed: true,
      episodeId: s.episode.id,
      runId: s.run.id,
      runName: s.run.name,
      reward: 0.3141,
      policyVersion: 7321,
      components: { passRate: 0.2718 },
    });
    expect((await rev.reviews.item({ id: id! })).turns[0]!.observation).toBe('27/100 passed; secret-observation');
    expect((await rev.reviews.queue({ state: 'done', runId: s.run.id })).items[0]).toMatchObject({ id, episodeId: s.episode.id, runId: s.run.id });
  });

  it('episode reads are refused to a reviewer with a blind item pending (any episode), allowed after the verdict; admins and operators unaffected', async () => {
    const s = await blindEpisode();
    const other = await blindEpisode({ blind: false }); // an unrelated run: refusing only the item's episode would point at it
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    expect(id).toBeTruthy();
    for (const [what, read] of [
      ['episodes.get (the item)', () => rev.episodes.get({ id: s.episode.id })],
      ['episodes.get (another run)', () => rev.episodes.get({ id: other.episode.id })],
      ['episodes.list (the run)', () => rev.episodes.list({ runId: s.run.id })],
      ['episodes.list (another run)', () => rev.episodes.list({ runId: other.run.id })],
    ] as const) {
      const err = await refusal(read());
      expect(err.code, what).toBe('FORBIDDEN');
      expect(err.message, what).toMatch(/blind review item open.*submit its verdict or release the item/);
    }
    // A claim that expired but nobody took yet is still this reviewer's pending item.
    await database.db
      .update(reviews)
      .set({ claimExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(reviews.id, id!));
    expect((await refusal(rev.episodes.get({ id: s.episode.id }))).code).toBe('FORBIDDEN');
    await rev.reviews.claim({ runId: s.run.id }); // and claiming again hands it back
    // Others are not limited: a reviewer with nothing pending, operators, admins.
    const idle = await callerAs(database.db, 'reviewer');
    expect((await idle.episodes.get({ id: other.episode.id })).reward?.value).toBe(0.3141);
    const op = await callerAs(database.db, 'operator');
    expect((await op.episodes.list({ runId: s.run.id })).items[0]?.reward).toBe(0.3141);
    const admin = await callerAs(database.db, 'admin');
    const adminItem = await blindEpisode();
    expect((await admin.reviews.claim({ runId: adminItem.run.id })).id).toBeTruthy();
    expect((await admin.episodes.get({ id: adminItem.episode.id })).reward?.value).toBe(0.3141);

    // After the verdict the reviewer reads episodes again.
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect((await rev.episodes.get({ id: s.episode.id })).reward?.value).toBe(0.3141);
    expect((await rev.episodes.list({ runId: s.run.id })).items[0]?.reward).toBe(0.3141);
    // Releasing the item also ends the refusal (the item goes back to the queue, still blind).
    const s2 = await blindEpisode();
    const { id: id2 } = await rev.reviews.claim({ runId: s2.run.id });
    expect((await refusal(rev.episodes.get({ id: s.episode.id }))).code).toBe('FORBIDDEN');
    await rev.reviews.release({ id: id2! });
    expect((await rev.episodes.get({ id: s.episode.id })).episode.id).toBe(s.episode.id);
  });

  it('reviewers never see, through episode reads, the reward of an episode whose blind review is open (skip, look up, come back does not unblind)', async () => {
    const s = await blindEpisode();
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    // Skip it (the claim goes back to the queue): nothing pending, episode reads work again…
    expect(await rev.reviews.claim({ runId: s.run.id, exclude: [id!] })).toEqual({ id: null, skippedLeft: 1 });
    const got = await rev.episodes.get({ id: s.episode.id });
    // …but the reward of that episode stays withheld while its blind review is open.
    expect(got).toMatchObject({ reward: null, rewardWithheld: true });
    expectNoSecrets(got.reward, ['0.3141', '0.2718'], 'episodes.get reward');
    const listed = (await rev.episodes.list({ runId: s.run.id })).items.find((e) => e.id === s.episode.id);
    expect(listed).toMatchObject({ reward: null, rewardWithheld: true });
    // Admins, operators and viewers (who cannot review) see it.
    for (const role of ['admin', 'operator', 'viewer'] as const) {
      const c = await callerAs(database.db, role);
      expect((await c.episodes.get({ id: s.episode.id })).reward?.value, role).toBe(0.3141);
      expect((await c.episodes.list({ runId: s.run.id })).items.find((e) => e.id === s.episode.id)?.reward, role).toBe(0.3141);
    }
    // Once the item has its verdict, reviewers see the reward too.
    expect((await rev.reviews.claim({ runId: s.run.id })).id).toBe(id);
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect(await rev.episodes.get({ id: s.episode.id })).toMatchObject({ reward: { value: 0.3141 }, rewardWithheld: false });
    expect((await rev.episodes.list({ runId: s.run.id })).items.find((e) => e.id === s.episode.id)).toMatchObject({ reward: 0.3141, rewardWithheld: false });
  });

  it('a reviewer with an item of a non-blind run pending reads episodes as usual', async () => {
    const s = await blindEpisode({ blind: false });
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    expect(await rev.reviews.item({ id: id! })).toMatchObject({ revealed: true, episodeId: s.episode.id, reward: 0.3141 });
    expect((await rev.episodes.get({ id: s.episode.id })).reward?.value).toBe(0.3141);
  });

  it("double review: the other slot's done row does not name the episode while the reviewer's own slot is open", async () => {
    const s = await blindEpisode({ doubleReviewShare: 1 });
    const [alice, bob] = [await callerAs(database.db, 'reviewer'), await callerAs(database.db, 'reviewer')];
    const a = (await alice.reviews.claim({ runId: s.run.id })).id!;
    await alice.reviews.submit({ id: a, verdict: 'false_negative', correctedReward: 1 });
    const b = (await bob.reviews.claim({ runId: s.run.id })).id!;
    expectNoSecrets(await bob.reviews.queue({ state: 'all', runId: s.run.id }), secretsOf(s), "bob's queue");
    expectNoSecrets(await bob.reviews.item({ id: a }), secretsOf(s), "alice's item seen by bob");
    expect(await bob.reviews.diagnosis({ id: a })).toBeNull();
    expect(await alice.reviews.diagnosis({ id: a })).toMatchObject({ episodeId: s.episode.id });
    await bob.reviews.submit({ id: b, verdict: 'correct' });
    expect(await bob.reviews.diagnosis({ id: a })).toMatchObject({ episodeId: s.episode.id });
  });

  // Red-team regressions: side doors that led from a blind item to its run and, from the run,
  // to the reward by subtraction (docs/reviews.md, blind review).

  it('(a) filtering the queue or claims by each run in turn does not tell which run a held blind item is in', async () => {
    const made = [await blindEpisode(), await blindEpisode(), await blindEpisode()];
    const rev = await callerAs(database.db, 'reviewer');
    // (The queue holds other tests' items too, some not blind: claim one of these blind ones.)
    const { id } = await rev.reviews.claim({ runId: made[1]!.run.id });
    expect(id).toBeTruthy();
    const all = (await rev.runs.list({ pageSize: 200 })).items;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const probe = async (what: string) => {
      for (const r of all) {
        for (const state of ['open', 'all'] as const) {
          const q = await rev.reviews.queue({ runId: r.id, state, pageSize: 200 });
          expect(
            q.items.some((x) => x.id === id),
            `${what}: queue(${state}) of ${r.name}`,
          ).toBe(false);
        }
        // The held item is handed back whatever run is asked for, so every answer is the same.
        expect((await rev.reviews.claim({ runId: r.id })).id, `${what}: claim of ${r.name}`).toBe(id);
      }
    };
    await probe('held');
    // A claim that expired but nobody took yet is still pending (episode reads stay refused): same answers.
    await database.db
      .update(reviews)
      .set({ claimExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(reviews.id, id!));
    await probe('expired');
    // Admins are not limited: the run filter works as it always has for them.
    const admin = await callerAs(database.db, 'admin');
    const [row] = await database.db.select({ runId: reviews.runId }).from(reviews).where(eq(reviews.id, id!));
    expect((await admin.reviews.queue({ runId: row!.runId, state: 'all', pageSize: 200 })).items.some((x) => x.id === id)).toBe(true);
  });

  it('(b) a run with an open blind item hides its reward figures from reviewers: runs.list/get, metrics, compare, events', async () => {
    const s = await blindEpisode();
    await database.db.insert(metricSamples).values([
      { runId: s.run.id, source: 'rl', name: 'reward_mean', step: 1, value: 0.3141 },
      { runId: s.run.id, source: 'rl', name: 'reward_max', step: 1, value: 0.3141 },
    ]);
    await database.db.update(runs).set({ lastRewardMean: 0.3141 }).where(eq(runs.id, s.run.id));
    await database.db.insert(runEvents).values({
      runId: s.run.id,
      type: 'iteration',
      actor: 'system:rl',
      message: 'iteration 1 trained: reward 0.314, held-out pass@1 0.250, policy v2',
      data: { iteration: 1, version: 2 },
    });
    const secrets = ['0.3141', '0.314'];
    const reads = async (c: Awaited<ReturnType<typeof callerAs>>) => ({
      list: (await c.runs.list({ pageSize: 200 })).items.find((r) => r.id === s.run.id),
      get: await c.runs.get({ id: s.run.id }),
      metrics: await c.runs.metrics({ ids: [s.run.id] }),
      compare: await c.runs.compare({ ids: [s.run.id] }),
      events: (await c.runs.events({ id: s.run.id })).items,
    });
    // Any reviewer, holding the item or not: the run's figures would give the item's reward.
    const rev = await callerAs(database.db, 'reviewer');
    for (const hold of [false, true]) {
      if (hold) expect((await rev.reviews.claim({ runId: s.run.id })).id).toBeTruthy();
      const got = await reads(rev);
      expect(got.list).toMatchObject({ lastRewardMean: null, rewardWithheld: true });
      expect(got.get).toMatchObject({ lastRewardMean: null, rewardWithheld: true, name: s.run.name });
      expect(got.metrics).toEqual([]);
      expect(got.compare).toMatchObject({ runs: [{ id: s.run.id, metricsWithheld: true }], samples: [] });
      expect(got.events.find((e) => e.type === 'iteration')?.message).toBe(
        'iteration 1 trained: reward withheld: blind review open, held-out pass@1 0.250, policy v2',
      );
      expectNoSecrets(got, secrets, `runs reads (reviewer${hold ? ' holding the item' : ''})`);
    }
    // Admins, operators and viewers see them.
    for (const role of ['admin', 'operator', 'viewer'] as const) {
      const got = await reads(await callerAs(database.db, role));
      expect(got.get.lastRewardMean, role).toBe(0.3141);
      expect(got.metrics.map((m) => m.name).sort(), role).toEqual(['reward_max', 'reward_mean']);
      expect(got.compare.samples.length, role).toBe(2);
      expect(got.events.find((e) => e.type === 'iteration')?.message, role).toContain('reward 0.314');
    }
    // Once every blind item of the run has its verdict, reviewers see them too.
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    const after = await reads(rev);
    expect(after.get).toMatchObject({ lastRewardMean: 0.3141, rewardWithheld: false });
    expect(after.metrics.length).toBe(2);
    expect(after.events.find((e) => e.type === 'iteration')?.message).toContain('reward 0.314');
  });

  it("(e) per-task verdicts (reviews.reliability) of a run with an open blind item are withheld from reviewers: a first reviewer's false_negative says the reward was low", async () => {
    const s = await blindEpisode({ doubleReviewShare: 1 });
    const first = await callerAs(database.db, 'reviewer');
    const { id } = await first.reviews.claim({ runId: s.run.id });
    await first.reviews.submit({ id: id!, verdict: 'false_negative', note: 'correct code scored low' });
    const second = await callerAs(database.db, 'reviewer');
    const got = await second.reviews.reliability({ runId: s.run.id });
    expect(got).toMatchObject({ overall: null, byTask: [], byEnvHash: [], withheld: true });
    expect(JSON.stringify(got)).not.toContain('false');
    // admins see the verdicts as before
    const admin = await callerAs(database.db, 'admin');
    expect(await admin.reviews.reliability({ runId: s.run.id })).toMatchObject({ withheld: false, overall: { reviewed: 1, falseNegative: 1 } });
  });

  it("(c) release, then the run's other episodes: no reward of that run is shown to reviewers while its blind item is open", async () => {
    const { run, tasks } = await seedRun(database.db, {
      name: `secret-run-${Math.random().toString(36).slice(2, 7)}`,
      config: { review: { ...reviewCfg().review, rate: 0.05 } },
    });
    const a = await seedEpisode(database.db, run.id, tasks[0]!.id, 0.3141, { passRate: 0.2 });
    await seedEpisode(database.db, run.id, tasks[1]!.id, 0.9, { passRate: 1 });
    await database.db.insert(reviews).values({ episodeId: a.id, runId: run.id, slot: 0, sampleReason: 'uniform' });
    await database.db.insert(metricSamples).values({ runId: run.id, source: 'rl', name: 'reward_mean', step: 1, value: (0.3141 + 0.9) / 2 });
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: run.id });
    await rev.reviews.release({ id: id! });
    const eps = (await rev.episodes.list({ runId: run.id })).items;
    expect(eps).toHaveLength(2);
    // Every episode of the run is withheld alike: none is singled out, no reward to subtract.
    for (const e of eps) expect(e).toMatchObject({ reward: null, rewardWithheld: true });
    for (const e of eps) expect((await rev.episodes.get({ id: e.id })).reward).toBeNull();
    expect(await rev.runs.metrics({ ids: [run.id] })).toEqual([]);
    expectNoSecrets(eps, ['0.3141', '0.9'], 'episodes.list');
    // The operator's view is unchanged; the reviewer's returns with the verdict.
    expect((await (await callerAs(database.db, 'operator')).episodes.list({ runId: run.id })).items.map((e) => e.reward).sort()).toEqual([0.3141, 0.9]);
    await rev.reviews.claim({ runId: run.id });
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect((await rev.episodes.list({ runId: run.id })).items.map((e) => e.reward).sort()).toEqual([0.3141, 0.9]);
  });

  it("(d) a blind item's sample reason (computed from the reward) is withheld until the verdict", async () => {
    const { run, tasks } = await seedRun(database.db, { name: `secret-run-${Math.random().toString(36).slice(2, 7)}`, config: reviewCfg() });
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 0.52, { passRate: 0.5 });
    const reason = 'boundary:partial_pass,boundary:near_threshold,anomaly:task_outlier';
    await database.db.insert(reviews).values({ episodeId: ep.id, runId: run.id, slot: 0, sampleReason: reason });
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: run.id });
    expect((await rev.reviews.item({ id: id! })).sampleReason).toBe(SAMPLE_REASON_WITHHELD);
    for (const c of [rev, await callerAs(database.db, 'reviewer')]) {
      const row = (await c.reviews.queue({ state: 'all', pageSize: 200 })).items.find((x) => x.id === id);
      expect(row?.sampleReason).toBe(SAMPLE_REASON_WITHHELD);
    }
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect((await rev.reviews.item({ id: id! })).sampleReason).toBe(reason);
    expect((await rev.reviews.queue({ state: 'done', pageSize: 200 })).items.find((x) => x.id === id)?.sampleReason).toBe(reason);
  });
  it("(f) a blind repository-task item shows the agent's patch and tool outputs (what is judged), never the grade", async () => {
    const { run, tasks } = await seedRun(database.db, { name: `secret-run-${Math.random().toString(36).slice(2, 7)}`, config: reviewCfg() });
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 0.3141, { passRate: 0.2718 });
    const patch = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
    const grading: EpisodeGrading = {
      status: 'graded',
      reward: 0.3141,
      components: { f2p: 0.2718 },
      tests: [],
      patchApplied: true,
      rejectedPaths: [],
      runtime: 'bwrap',
      envHash: 'sha256:e',
      workspaceSha256: 'sha256:w',
      durationMs: 1,
      patch,
      binarySkipped: [],
      end: 'submitted',
    };
    await database.db.update(episodes).set({ grading }).where(eq(episodes.id, ep.id));
    await database.db.delete(turns).where(eq(turns.episodeId, ep.id));
    await database.db.insert(turns).values([
      {
        episodeId: ep.id,
        index: 0,
        action: 'I will run the tests',
        observation: '$ pytest\n1 failed',
        toolCalls: [{ name: 'bash', arguments: { command: 'pytest' }, output: '1 failed', durationMs: 5 }],
      },
    ]);
    await database.db.insert(reviews).values({ episodeId: ep.id, runId: run.id, slot: 0, sampleReason: 'uniform' });
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: run.id });
    const item = await rev.reviews.item({ id: id! });
    expect(item.patch).toBe(patch);
    expect(item.turns[0]!.observation).toBe('$ pytest\n1 failed');
    expectNoSecrets(item, ['0.3141', '0.2718'], 'blind repo item');
  });
});
