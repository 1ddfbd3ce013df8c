import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { environments, jobs, reviews, rewards } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { seedEpisode, seedRun } from '@/test/seed';
import { cohensKappa, type Verdict } from './kappa';
import { sampleForReview } from './sampler';
import { assertNotQuarantined } from '@/server/environments/quarantine';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

describe("Cohen's kappa", () => {
  it('matches a worked example (po 0.7, pe 0.5 → 0.4)', () => {
    const pairs: [Verdict, Verdict][] = [
      ...Array(20).fill(['correct', 'correct']),
      ...Array(5).fill(['correct', 'false_negative']),
      ...Array(10).fill(['false_negative', 'correct']),
      ...Array(15).fill(['false_negative', 'false_negative']),
    ];
    expect(cohensKappa(pairs)).toBeCloseTo(0.4, 10);
    expect(
      cohensKappa([
        ['unclear', 'unclear'],
        ['correct', 'correct'],
      ]),
    ).toBe(1);
    expect(cohensKappa([])).toBeNull();
    // Perfect disagreement on a balanced table is below chance.
    expect(
      cohensKappa([
        ['correct', 'false_positive'],
        ['false_positive', 'correct'],
      ]),
    ).toBeLessThan(0);
  });
});

describe('sampling', () => {
  it('samples ≥ 5% of a run with every stratum represented, and records why', async () => {
    const { run, tasks } = await seedRun(database.db, { tasks: 10 });
    const ids: string[] = [];
    let n = 0;
    for (let it = 0; it < 4; it++) {
      for (const t of tasks) {
        for (let s = 0; s < 6; s++) {
          n++;
          // Mostly clean passes/fails, some partial passes, rare outliers and one new env hash.
          let reward = t.externalId.charCodeAt(1) % 2 ? 1 : 0;
          let passRate = reward;
          if (n % 7 === 0) passRate = reward = 0.5;
          if (n === 150) reward = passRate = 1 - reward; // an outlier against its task
          const ep = await seedEpisode(database.db, run.id, t.id, reward, {
            iteration: it,
            group: 0,
            passRate,
            envHash: n === 200 ? 'sha256:new' : 'sha256:base',
          });
          await sampleForReview(database.db, ep.id);
          ids.push(ep.id);
        }
      }
    }
    const sampled = await database.db.select().from(reviews).where(eq(reviews.runId, run.id));
    const episodesSampled = new Set(sampled.map((r) => r.episodeId));
    expect(episodesSampled.size / ids.length).toBeGreaterThanOrEqual(0.05);
    const reasons = sampled.flatMap((r) => r.sampleReason.split(','));
    expect(reasons.some((r) => r.startsWith('boundary:partial_pass'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('anomaly:task_outlier'))).toBe(true);
    expect(reasons).toContain('anomaly:new_env_hash');
    // only episode 200 ran under another hash: the run's first episode is not "new" (nothing to differ from)
    expect(sampled.filter((r) => r.sampleReason.includes('anomaly:new_env_hash')).map((r) => r.episodeId)).toEqual([ids[199]]);
    expect(reasons.some((r) => r === 'uniform' || r === 'uniform:coverage')).toBe(true);
    // Sampling the same episode again changes nothing.
    const before = sampled.length;
    await sampleForReview(database.db, ids[0]!);
    expect((await database.db.select().from(reviews).where(eq(reviews.runId, run.id))).length).toBe(before);
    const admin = await callerAs(database.db, 'admin');
    const [cov] = await admin.reviews.coverage({ runIds: [run.id] });
    expect(cov).toMatchObject({ scored: ids.length, sampled: episodesSampled.size, reviewed: 0, belowTarget: true });
    expect(cov!.required).toBe(Math.ceil(0.05 * ids.length));
  });
});

describe('held for review', () => {
  it('a reward the grader held (components.suspect) is always sampled, with the reason', async () => {
    const { run, tasks } = await seedRun(database.db, { tasks: 1 });
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 1);
    await database.db
      .update(rewards)
      .set({ components: sql`${rewards.components} || '{"suspect": 1}'::jsonb` })
      .where(eq(rewards.episodeId, ep.id));
    const d = await sampleForReview(database.db, ep.id);
    expect(d.sampled).toBe(true);
    expect(d.reasons).toContain('suspect:held_for_review');
  });
});

describe('review queue', () => {
  it('identical episodes are one item: a twin is never claimable and carries the verdict to its reward', async () => {
    const { run, tasks } = await seedRun(database.db, {
      config: { review: { rate: 1, doubleReviewShare: 0, blind: false, disputed: 'exclude', thresholds: [0.5] } },
    });
    const same = ['def f(x):', '    return x - 1'];
    const first = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { actions: same });
    const twin = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { actions: same });
    const other = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { actions: ['def f(x):', '    return x + 1'] });
    const otherTask = await seedEpisode(database.db, run.id, tasks[1]!.id, 1, { actions: same });
    for (const e of [first, twin, other, otherTask]) await sampleForReview(database.db, e.id);
    const rows = await database.db.select().from(reviews).where(eq(reviews.runId, run.id));
    const of = (id: string) => rows.find((r) => r.episodeId === id)!;
    expect(of(twin.id).twinOf).toBe(of(first.id).id);
    expect(of(twin.id).sampleReason).toMatch(/(^|,)twin$/);
    expect([of(other.id).twinOf, of(otherTask.id).twinOf]).toEqual([null, null]); // another output; another task
    const reviewer = await callerAs(database.db, 'reviewer');
    const claimed: string[] = [];
    for (;;) {
      const { id } = await reviewer.reviews.claim({ runId: run.id });
      if (!id) break;
      claimed.push(id);
      const episode = rows.find((r) => r.id === id)!.episodeId;
      await reviewer.reviews.submit(episode === first.id ? { id, verdict: 'false_positive', correctedReward: 0 } : { id, verdict: 'correct' });
    }
    expect(claimed).not.toContain(of(twin.id).id);
    expect(claimed).toHaveLength(3);
    // the twin carries the verdict, and its reward is marked disputed like the original's
    const [carried] = await database.db.select().from(reviews).where(eq(reviews.episodeId, twin.id));
    expect(carried).toMatchObject({ verdict: 'false_positive', correctedReward: 0 });
    const [reward] = await database.db.select().from(rewards).where(eq(rewards.episodeId, twin.id));
    expect(reward).toMatchObject({ disputed: 'false_positive', correctedValue: 0 });
    // an identical episode sampled after the verdict is born with it
    const late = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { actions: same });
    await sampleForReview(database.db, late.id);
    const [born] = await database.db.select().from(reviews).where(eq(reviews.episodeId, late.id));
    expect(born).toMatchObject({ twinOf: of(first.id).id, verdict: 'false_positive' });
  });

  it('two concurrent reviewers never claim the same single-review item', async () => {
    const { run, tasks } = await seedRun(database.db, {
      config: { review: { rate: 1, doubleReviewShare: 0, blind: true, disputed: 'exclude', thresholds: [0.5] } },
    });
    for (let i = 0; i < 30; i++) {
      const ep = await seedEpisode(database.db, run.id, tasks[i % tasks.length]!.id, i % 2, { actions: [`return x + ${i}`] });
      await sampleForReview(database.db, ep.id);
    }
    const [a, b] = [await callerAs(database.db, 'reviewer'), await callerAs(database.db, 'reviewer')];
    const work = async (c: typeof a) => {
      const got: string[] = [];
      for (;;) {
        const { id } = await c.reviews.claim({ runId: run.id });
        if (!id) return got;
        got.push(id);
        await c.reviews.submit({ id, verdict: 'correct' });
      }
    };
    const [ga, gb] = await Promise.all([work(a), work(b)]);
    expect(ga.length + gb.length).toBe(30);
    expect(ga.filter((id) => gb.includes(id))).toEqual([]);
    expect(ga.length).toBeGreaterThan(0);
    expect(gb.length).toBeGreaterThan(0);
  });

  it('double-review items go to two different reviewers; kappa is computed per pair and overall', async () => {
    const { run, tasks } = await seedRun(database.db, {
      config: { review: { rate: 1, doubleReviewShare: 1, blind: true, disputed: 'exclude', thresholds: [0.5] } },
    });
    for (let i = 0; i < 4; i++) await sampleForReview(database.db, (await seedEpisode(database.db, run.id, tasks[i]!.id, 1)).id);
    const alice = await callerAs(database.db, 'reviewer', 'alice');
    const bob = await callerAs(database.db, 'reviewer', 'bob');
    const verdictsA: Verdict[] = ['correct', 'correct', 'false_negative', 'unclear'];
    const verdictsB: Verdict[] = ['correct', 'false_positive', 'false_negative', 'unclear'];
    const byEpisode = new Map<string, string[]>();
    for (const [c, vs] of [
      [alice, verdictsA],
      [bob, verdictsB],
    ] as const) {
      for (let i = 0; i < 4; i++) {
        const { id } = await c.reviews.claim({ runId: run.id });
        await c.reviews.submit({ id: id!, verdict: vs[i]!, correctedReward: vs[i] === 'false_negative' || vs[i] === 'false_positive' ? 0.5 : null });
        // Blind review names the episode only once the verdict is in.
        const { episodeId } = await c.reviews.item({ id: id! });
        byEpisode.set(episodeId!, [...(byEpisode.get(episodeId!) ?? []), id!]);
      }
      expect((await c.reviews.claim({ runId: run.id })).id).toBeNull(); // never both slots of one episode
    }
    expect([...byEpisode.values()].every((v) => v.length === 2)).toBe(true);
    const ag = await alice.reviews.agreement({ runId: run.id });
    expect(ag.pairs).toHaveLength(1);
    expect(ag.pairs[0]).toMatchObject({ a: 'alice', b: 'bob', items: 4 });
    // Pairs depend on which episode each claimed, so compare with kappa over the actual pairs.
    const rows = await database.sql<{ ra: string; va: Verdict; vb: Verdict }[]>`
      select ua.username as ra, x.verdict as va, y.verdict as vb from reviews x join reviews y on y.episode_id = x.episode_id and y.slot > x.slot
      join users ua on ua.id = x.reviewer_id where x.run_id = ${run.id}`;
    const pairs = rows.map((r) => (r.ra === 'alice' ? [r.va, r.vb] : [r.vb, r.va]) as [Verdict, Verdict]);
    expect(ag.pairs[0]!.kappa).toBeCloseTo(cohensKappa(pairs)!, 10);
    expect(ag.overall.items).toBe(4);
    const stats = await alice.reviews.reviewers();
    expect(stats.find((s) => s.username === 'alice')).toMatchObject({ reviewed: 4, double_reviewed: 4 });
  });

  it('blind review hides run, policy version and reward until the verdict; verdicts are audited with history', async () => {
    const { run, tasks } = await seedRun(database.db, {
      name: 'secret-run',
      config: { review: { rate: 1, doubleReviewShare: 0, blind: true, disputed: 'exclude', thresholds: [0.5] } },
    });
    await sampleForReview(
      database.db,
      (await seedEpisode(database.db, run.id, tasks[0]!.id, 0.25, { actions: ['def f0(x):\n    return x', 'def f0(x):\n    return x + 1'] })).id,
    );
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: run.id });
    const before = await rev.reviews.item({ id: id! });
    expect(before).toMatchObject({ blind: true, revealed: false, runName: null, reward: null, policyVersion: null, episodeId: null, components: null });
    expect(before.turns).toHaveLength(2);
    expect(before.task?.prompt).toContain('def f0');
    await rev.reviews.submit({ id: id!, verdict: 'correct', note: 'looks right' });
    await rev.reviews.submit({ id: id!, verdict: 'unclear', note: 'on second thought' });
    const after = await rev.reviews.item({ id: id! });
    expect(after).toMatchObject({ revealed: true, runName: 'secret-run', reward: 0.25, verdict: 'unclear', components: { passRate: 0.25 } });
    expect(after.history.map((h) => h.verdict)).toEqual(['correct', 'unclear']);
    const audit = await database.sql`select action from audit_log where target_id = ${id!} order by seq`;
    expect(audit.map((a) => a.action)).toEqual(['review.verdict', 'review.verdict_edit']);
    const viewer = await callerAs(database.db, 'viewer');
    await expect(viewer.reviews.claim({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const op = await callerAs(database.db, 'operator');
    await expect(op.reviews.submit({ id: id!, verdict: 'correct' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('disputed verdicts mark the reward, open a diagnosis, flag a clustering environment; quarantine blocks sandbox starts', async () => {
    const { run, tasks } = await seedRun(database.db, {
      config: { review: { rate: 1, doubleReviewShare: 0, blind: false, disputed: 'exclude', thresholds: [0.5] } },
    });
    await database.db.insert(environments).values({ name: 'py-buggy', contentHash: 'sha256:buggy' });
    for (let i = 0; i < 4; i++) await sampleForReview(database.db, (await seedEpisode(database.db, run.id, tasks[i]!.id, 0, { envHash: 'sha256:buggy' })).id);
    const rev = await callerAs(database.db, 'reviewer');
    let flagged: string | null = null;
    for (let i = 0; i < 4; i++) {
      const { id } = await rev.reviews.claim({ runId: run.id });
      const res = await rev.reviews.submit({ id: id!, verdict: 'false_negative', correctedReward: 1, note: 'the env fails correct code' });
      expect(res.diagnosisId).toBeTruthy();
      flagged ??= res.flaggedEnvironment;
    }
    expect(flagged).toBe('py-buggy');
    const marked = await database.db.select().from(rewards).where(eq(rewards.envHash, 'sha256:buggy'));
    expect(marked.every((r) => r.disputed === 'false_negative' && r.correctedValue === 1)).toBe(true);
    const [{ n } = { n: 0 }] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(jobs)
      .where(sql`${jobs.queue} = 'review.diagnose' and ${jobs.runId} = ${run.id}`);
    expect(n).toBe(4);
    const rel = await rev.reviews.reliability({ runId: run.id });
    expect(rel.overall).toMatchObject({ reviewed: 4, disputed: 4, falseNegativeRate: 1 });
    expect(rel.byEnvHash[0]).toMatchObject({ key: 'sha256:buggy', disputedRate: 1 });

    await assertNotQuarantined(database.db, { hash: 'sha256:buggy' }); // flagged is not yet quarantined
    const admin = await callerAs(database.db, 'admin');
    await admin.environments.quarantine({ name: 'py-buggy' });
    await expect(assertNotQuarantined(database.db, { hash: 'sha256:buggy' })).rejects.toThrow(/quarantined/);
    await admin.environments.clear({ name: 'py-buggy' });
    await assertNotQuarantined(database.db, { hash: 'sha256:buggy' });
  });

  it('guidelines: readable by reviewers (with the bias and ethics reminder), editable by admins only', async () => {
    const rev = await callerAs(database.db, 'reviewer');
    const g = await rev.reviews.guidelines();
    expect(g.text).toMatch(/bias/i);
    expect(g.text).toMatch(/ethical/i);
    await expect(rev.reviews.setGuidelines({ text: 'x'.repeat(30) })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const admin = await callerAs(database.db, 'admin');
    await admin.reviews.setGuidelines({ text: 'New guidelines: watch for bias and ethical problems.' });
    expect((await rev.reviews.guidelines()).text).toMatch(/^New guidelines/);
  });
});
