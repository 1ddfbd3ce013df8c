import { TRPCError } from '@trpc/server';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Database } from '@/db/client';
import { reviews } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { anonymousCaller, callerAs } from '@/test/callers';
import { seedEpisode, seedRun } from '@/test/seed';
import type { reviewConfig } from '@/core/run-config';

type ReviewConfig = z.output<typeof reviewConfig>;
import { sampleForReview } from './sampler';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const review = (o: Partial<ReviewConfig> = {}): { review: ReviewConfig } => ({
  review: { rate: 1, doubleReviewShare: 0, blind: true, disputed: 'exclude', thresholds: [0.5], ...o },
});

/** A run with `scored` scored episodes; `items` of them get a review row with the given reason, age and (optionally) a verdict. */
async function runWithItems(scored: number, rate: number, items: { reason: string; t: number; verdict?: 'correct' }[]) {
  const { run, tasks } = await seedRun(database.db, { config: review({ rate }) });
  const eps = [];
  for (let i = 0; i < scored; i++) eps.push(await seedEpisode(database.db, run.id, tasks[i % tasks.length]!.id, i % 2));
  const ids: string[] = [];
  for (const [i, it] of items.entries()) {
    const [row] = await database.db
      .insert(reviews)
      .values({
        episodeId: eps[i]!.id,
        runId: run.id,
        slot: 0,
        sampleReason: it.reason,
        createdAt: new Date(Date.UTC(2020, 0, 1, 0, 0, it.t)),
        verdict: it.verdict ?? null,
        submittedAt: it.verdict ? new Date() : null,
      })
      .returning({ id: reviews.id });
    ids.push(row!.id);
  }
  return { run, ids };
}

describe('claim order', () => {
  it('lowest-coverage runs first, then boundary/anomaly before uniform, then oldest', async () => {
    // rate 0.1: required = ceil(0.1 × scored). Ages t are seconds; the old order was t ascending.
    const covered = await runWithItems(10, 0.1, [
      { reason: 'anomaly:task_outlier', t: 0 },
      { reason: 'uniform', t: 0, verdict: 'correct' },
    ]); // 1/1
    const half = await runWithItems(20, 0.1, [
      { reason: 'boundary:partial_pass', t: 1 },
      { reason: 'uniform', t: 0, verdict: 'correct' },
    ]); // 1/2
    const lowSmall = await runWithItems(10, 0.1, [
      { reason: 'uniform', t: 2 },
      { reason: 'anomaly:new_env_hash', t: 5 },
    ]); // 0/1
    const lowBig = await runWithItems(30, 0.1, [
      // 0/3: the largest shortfall among the uncovered
      { reason: 'uniform', t: 3 },
      { reason: 'uniform:coverage', t: 4 },
      { reason: 'uniform,boundary:near_threshold', t: 6 },
      { reason: 'anomaly:task_jump', t: 7 },
    ]);
    const expected = [lowBig.ids[2], lowBig.ids[3], lowBig.ids[0], lowBig.ids[1], lowSmall.ids[1], lowSmall.ids[0], half.ids[0], covered.ids[0]];
    // The open queue lists items in the order they will be handed out, page by page.
    const lister = await callerAs(database.db, 'reviewer');
    expect((await lister.reviews.queue({ state: 'open' })).items.map((i) => i.id)).toEqual(expected);
    expect(await lister.reviews.queue({ state: 'open', page: 2, pageSize: 3 })).toMatchObject({ total: 8, items: expected.slice(3, 6).map((id) => ({ id })) });
    expect((await lister.reviews.queue({ state: 'open', runId: lowSmall.run.id })).items.map((i) => i.id)).toEqual([lowSmall.ids[1], lowSmall.ids[0]]);
    // One claim per reviewer and no verdicts, so coverage (and with it the order) stays put.
    const got: (string | null)[] = [];
    for (let i = 0; i < expected.length; i++) got.push((await (await callerAs(database.db, 'reviewer')).reviews.claim({})).id);
    expect(got).toEqual(expected);
    expect((await (await callerAs(database.db, 'reviewer')).reviews.claim({})).id).toBeNull();
  });

  it('a verdict that lifts a run to its target moves the queue on to the next run', async () => {
    const a = await runWithItems(10, 0.1, [
      { reason: 'uniform', t: 1 },
      { reason: 'anomaly:task_outlier', t: 2 },
    ]); // 0/1
    const b = await runWithItems(20, 0.1, [
      { reason: 'uniform', t: 0 },
      { reason: 'uniform', t: 3 },
    ]); // 0/2: first
    const rev = await callerAs(database.db, 'reviewer');
    const order: string[] = [];
    for (;;) {
      const { id } = await rev.reviews.claim({});
      if (!id) break;
      order.push(id);
      await rev.reviews.submit({ id, verdict: 'correct' });
    }
    // b 0/2 and a 0/1: b (larger shortfall), oldest → b 1/2 vs a 0/1: a's anomaly → a is at
    // target, b is not: b's last → a's last.
    expect(order).toEqual([b.ids[0], a.ids[1], b.ids[1], a.ids[0]]);
  });
});

describe('skip', () => {
  it('moves on past skipped items, says when only skipped ones are left, and allows coming back', async () => {
    const { run, ids } = await runWithItems(3, 1, [
      { reason: 'uniform', t: 0 },
      { reason: 'uniform', t: 1 },
      { reason: 'uniform', t: 2 },
    ]);
    const rev = await callerAs(database.db, 'reviewer');
    const other = await callerAs(database.db, 'reviewer');
    expect(await rev.reviews.claim({ runId: run.id })).toEqual({ id: ids[0], skippedLeft: 0 });
    // Skip = claim with the skipped item excluded: the next item, and the skipped claim goes back.
    expect(await rev.reviews.claim({ runId: run.id, exclude: [ids[0]!] })).toEqual({ id: ids[1], skippedLeft: 0 });
    const [back] = await database.db.select().from(reviews).where(eq(reviews.id, ids[0]!));
    expect(back).toMatchObject({ reviewerId: null, claimExpiresAt: null });
    expect((await rev.reviews.claim({ runId: run.id, exclude: [ids[0]!, ids[1]!] })).id).toBe(ids[2]);
    expect(await rev.reviews.claim({ runId: run.id, exclude: ids })).toEqual({ id: null, skippedLeft: 3 });
    // Someone else takes one of the skipped: it no longer counts as left for this reviewer.
    expect((await other.reviews.claim({ runId: run.id })).id).toBe(ids[0]);
    expect(await rev.reviews.claim({ runId: run.id, exclude: ids })).toEqual({ id: null, skippedLeft: 2 });
    // Dropping the skip list comes back to them.
    expect((await rev.reviews.claim({ runId: run.id })).id).toBe(ids[1]);
    // Without an exclude list a held claim is handed back as is (a reload does not lose it).
    expect((await rev.reviews.claim({ runId: run.id })).id).toBe(ids[1]);
  });
});

describe('claims', () => {
  it('an abandoned claim returns to the queue when its lease expires; the old holder can no longer submit', async () => {
    const { run, ids } = await runWithItems(1, 1, [{ reason: 'uniform', t: 0 }]);
    const [x, y] = [await callerAs(database.db, 'reviewer'), await callerAs(database.db, 'reviewer')];
    expect((await x.reviews.claim({ runId: run.id })).id).toBe(ids[0]);
    expect((await y.reviews.claim({ runId: run.id })).id).toBeNull(); // held by x
    const [held] = await database.db.select().from(reviews).where(eq(reviews.id, ids[0]!));
    expect(held!.claimExpiresAt!.getTime() - held!.claimedAt!.getTime()).toBe(15 * 60_000);
    // x walks away: let the 15-minute lease run out.
    await database.db
      .update(reviews)
      .set({ claimExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(reviews.id, ids[0]!));
    expect((await y.reviews.claim({ runId: run.id })).id).toBe(ids[0]);
    await expect(x.reviews.submit({ id: ids[0]!, verdict: 'correct' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/claim this item first/),
    });
    await y.reviews.submit({ id: ids[0]!, verdict: 'correct' });
    // An expired claim nobody took: its holder must claim again before submitting.
    const second = await runWithItems(1, 1, [{ reason: 'uniform', t: 0 }]);
    expect((await x.reviews.claim({ runId: second.run.id })).id).toBe(second.ids[0]);
    await database.db
      .update(reviews)
      .set({ claimExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(reviews.id, second.ids[0]!));
    await expect(x.reviews.submit({ id: second.ids[0]!, verdict: 'correct' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/expired/),
    });
  });

  it('a deliberately double-reviewed episode goes to two reviewers, never twice to one, and stays independent until both are in', async () => {
    const { run, tasks } = await seedRun(database.db, { name: 'double-run', config: review({ doubleReviewShare: 1 }) });
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 0.75);
    expect(await sampleForReview(database.db, ep.id)).toMatchObject({ sampled: true, slots: 2 });
    const alice = await callerAs(database.db, 'reviewer');
    const bob = await callerAs(database.db, 'reviewer');
    const carol = await callerAs(database.db, 'reviewer');
    const a = (await alice.reviews.claim({ runId: run.id })).id!;
    expect((await alice.reviews.claim({ runId: run.id, exclude: [a] })).id).toBeNull(); // not the second slot
    const again = (await alice.reviews.claim({ runId: run.id })).id!;
    await alice.reviews.submit({ id: again, verdict: 'unclear', note: 'fixture bug?' });
    const b = (await bob.reviews.claim({ runId: run.id })).id!;
    expect(b).not.toBe(again);
    expect((await carol.reviews.claim({ runId: run.id })).id).toBeNull(); // both slots taken
    // Bob cannot see Alice's verdict (nor what it reveals) while his own slot is open.
    expect(await bob.reviews.item({ id: again })).toMatchObject({
      independent: false,
      verdict: null,
      note: null,
      correctedReward: null,
      revealed: false,
      runName: null,
      reward: null,
      history: [],
    });
    expect(await bob.reviews.history({ id: again })).toEqual([]);
    const done = await bob.reviews.queue({ runId: run.id, state: 'done' });
    expect(done.items.find((i) => i.id === again)?.verdict).toBeNull();
    await bob.reviews.submit({ id: b, verdict: 'correct' });
    expect(await bob.reviews.item({ id: again })).toMatchObject({
      independent: true,
      verdict: 'unclear',
      note: 'fixture bug?',
      revealed: true,
      runName: 'double-run',
      reward: 0.75,
    });
    expect((await bob.reviews.history({ id: again })).map((h) => h.verdict)).toEqual(['unclear']);
    // Someone with no slot on the episode (carol) sees it as usual.
    expect(await carol.reviews.item({ id: again })).toMatchObject({ independent: true, verdict: 'unclear' });
  });
});

describe('double review and agreement', () => {
  it('the configured share of sampled episodes gets a second slot', async () => {
    const { run, tasks } = await seedRun(database.db, { config: review({ doubleReviewShare: 0.1 }) });
    let doubled = 0;
    for (let i = 0; i < 120; i++) {
      // distinct actions: identical episodes would be one item and its twins (reviews.test.ts)
      const d = await sampleForReview(
        database.db,
        (await seedEpisode(database.db, run.id, tasks[i % tasks.length]!.id, i % 2, { actions: [`return x + ${i}`] })).id,
      );
      expect(d.sampled).toBe(true); // rate 1
      if (d.slots === 2) doubled++;
    }
    const rows = await database.db.select().from(reviews).where(eq(reviews.runId, run.id));
    expect(rows.length).toBe(120 + doubled);
    // Binomial(120, 0.1): mean 12, sd 3.3; these bounds fail about once in 10⁴ runs. Share 0 and 1: reviews.test.ts.
    expect(doubled).toBeGreaterThanOrEqual(2);
    expect(doubled).toBeLessThanOrEqual(30);
  });

  it("Cohen's kappa per pair and pooled over pairs, on a known table", async () => {
    const { run, tasks } = await seedRun(database.db, { config: review({ doubleReviewShare: 1 }) });
    const names = ['kalice', 'kbob', 'kcarol'] as const;
    for (const n of names) await callerAs(database.db, 'reviewer', n);
    const idOf = Object.fromEntries(
      await database.sql<{ username: string; id: string }[]>`select username, id from users where username in ${database.sql(names)}`.then((r) =>
        r.map((u) => [u.username, u.id]),
      ),
    );
    // [slot-0 reviewer, verdict, slot-1 reviewer, verdict]
    const table: [string, string, string, string][] = [
      ['kalice', 'correct', 'kbob', 'correct'],
      ['kalice', 'correct', 'kbob', 'correct'],
      ['kalice', 'false_negative', 'kbob', 'false_negative'],
      ['kalice', 'correct', 'kbob', 'false_negative'],
      ['kalice', 'correct', 'kcarol', 'false_positive'],
      ['kalice', 'false_positive', 'kcarol', 'correct'],
    ];
    for (const [i, [ra, va, rb, vb]] of table.entries()) {
      const ep = await seedEpisode(database.db, run.id, tasks[i % tasks.length]!.id, 1);
      await database.sql`insert into reviews (episode_id, run_id, slot, sample_reason, reviewer_id, verdict, submitted_at) values
        (${ep.id}, ${run.id}, 0, 'uniform', ${idOf[ra]!}, ${va}, now()), (${ep.id}, ${run.id}, 1, 'uniform', ${idOf[rb]!}, ${vb}, now())`;
    }
    const ag = await (await callerAs(database.db, 'admin')).reviews.agreement({ runId: run.id });
    // alice–bob: po 3/4, pe 1/2 → 0.5. alice–carol: po 0, pe 1/2 → −1.
    expect(ag.pairs.map((p) => [p.a, p.b, p.items, p.agreement])).toEqual([
      ['kalice', 'kbob', 4, 0.75],
      ['kalice', 'kcarol', 2, 0],
    ]);
    expect(ag.pairs[0]!.kappa).toBeCloseTo(0.5, 10);
    expect(ag.pairs[1]!.kappa).toBeCloseTo(-1, 10);
    // Pooled: po 3/6, pe (4·3 + 1·2 + 1·1)/36 = 15/36 → (18 − 15)/21 = 1/7.
    expect(ag.overall.items).toBe(6);
    expect(ag.overall.kappa).toBeCloseTo(1 / 7, 10);
    const stats = await (await callerAs(database.db, 'reviewer')).reviews.reviewers();
    expect(stats.find((r) => r.username === 'kalice')).toMatchObject({ reviewed: 6, double_reviewed: 6 });
    expect(stats.find((r) => r.username === 'kcarol')).toMatchObject({ reviewed: 2 });
  });
});

describe('blind review', () => {
  it('is per run (each run is a queue): with blind off, run, reward and policy are shown before the verdict', async () => {
    const { run, tasks } = await seedRun(database.db, { name: 'open-run', config: review({ blind: false }) });
    await sampleForReview(database.db, (await seedEpisode(database.db, run.id, tasks[0]!.id, 0.4)).id);
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: run.id });
    expect(await rev.reviews.item({ id: id! })).toMatchObject({ blind: false, revealed: true, runName: 'open-run', runId: run.id, reward: 0.4 });
  });
});

describe('reviews API: roles and validation', () => {
  const uuid = '00000000-0000-4000-8000-000000000000';
  const reviewerOnly: [string, unknown][] = [
    ['queue', {}],
    ['claim', {}],
    ['release', { id: uuid }],
    ['item', { id: uuid }],
    ['submit', { id: uuid, verdict: 'correct' }],
    ['history', { id: uuid }],
    ['diagnosis', { id: uuid }],
    ['agreement', {}],
    ['reviewers', undefined],
    ['reliability', { runId: uuid }],
    ['guidelines', undefined],
  ];
  type Proc = (i: unknown) => Promise<unknown>;
  const call = (c: unknown, name: string) => (c as { reviews: Record<string, Proc> }).reviews[name]!;

  it('reviewers and admins only, with an error that says what to do', async () => {
    const viewer = await callerAs(database.db, 'viewer');
    const operator = await callerAs(database.db, 'operator');
    const anon = anonymousCaller(database.db);
    for (const [name, input] of reviewerOnly) {
      for (const c of [viewer, operator]) {
        const err = await call(
          c,
          name,
        )(input).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, name).toBeInstanceOf(TRPCError);
        expect((err as TRPCError).code, name).toBe('FORBIDDEN');
        expect((err as TRPCError).message, name).toMatch(/cannot review rewards; ask an admin for admin or reviewer access/);
      }
      expect(
        await call(
          anon,
          name,
        )(input).then(
          () => null,
          (e: unknown) => (e as TRPCError).code,
        ),
        name,
      ).toBe('UNAUTHORIZED');
    }
    // Admins can do everything a reviewer can; the unknown item is NOT_FOUND, not FORBIDDEN.
    const admin = await callerAs(database.db, 'admin');
    expect(await admin.reviews.claim({ runId: uuid })).toEqual({ id: null, skippedLeft: 0 });
    await expect(admin.reviews.item({ id: uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `no review item ${uuid}` });
    // Coverage is for everyone who can read runs.
    expect(await viewer.reviews.coverage({ runIds: [uuid] })).toEqual([]);
  });

  it('zod-validated inputs with messages naming the problem', async () => {
    const rev = await callerAs(database.db, 'reviewer');
    const bad: [string, unknown, RegExp][] = [
      ['item', { id: 'nope' }, /id must be a review item id \(uuid\)/],
      ['claim', { exclude: ['nope'] }, /exclude lists review item ids/],
      ['claim', { exclude: Array.from({ length: 1001 }, () => uuid) }, /exclude at most 1000/],
      ['claim', { runId: 'x' }, /runId must be a run id/],
      ['claim', { sneaky: 1 }, /sneaky/],
      ['submit', { id: uuid, verdict: 'meh' }, /verdict/],
      ['submit', { id: uuid, verdict: 'false_negative', correctedReward: 2 }, /a reward is between 0 and 1/],
      ['reliability', { runId: 'x' }, /runId must be a run id/],
      ['queue', { pageSize: 1000 }, /pageSize/],
    ];
    for (const [name, input, msg] of bad) {
      const err = await call(
        rev,
        name,
      )(input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${name}(${JSON.stringify(input).slice(0, 80)})`).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code, name).toBe('BAD_REQUEST');
      expect((err as TRPCError).message + JSON.stringify((err as TRPCError).cause), name).toMatch(msg);
    }
    // A "correct" verdict with a corrected reward is refused by the service with what to do.
    const { run, ids } = await runWithItems(1, 1, [{ reason: 'uniform', t: 0 }]);
    expect((await rev.reviews.claim({ runId: run.id })).id).toBe(ids[0]);
    await expect(rev.reviews.submit({ id: ids[0]!, verdict: 'correct', correctedReward: 0.5 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/drop the corrected reward/),
    });
  });
});
