import { eq, sql } from 'drizzle-orm';
import { assert, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Database } from '@/db/client';
import { jobs } from '@/db/schema';
import { freshDatabase, ownerConnection } from '@/test/database';
import { backoffMs, claim, complete, enqueue, fail, JobWakeup, releaseLease, renewLease, type Tx } from './index';

let database: Database;
const owner = 'test-worker';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  database = await freshDatabase();
  // The observable side effect jobs apply; a unique job_id makes "exactly once" checkable.
  // Scratch tables are created by the schema owner (the app role may not create tables).
  await ownerConnection(database).sql`create table effects (job_id bigint primary key, n int not null default 1)`;
});

/** Each test uses its own queue name so they do not see each other's jobs. */
let q = 0;
const nextQueue = () => `t${++q}`;

describe('work queue', () => {
  it('claims the highest priority first, then oldest', async () => {
    const queue = nextQueue();
    const low = await enqueue(database.db, { queue, priority: 0 });
    const high = await enqueue(database.db, { queue, priority: 5 });
    const mid = await enqueue(database.db, { queue, priority: 1 });
    const low2 = await enqueue(database.db, { queue, priority: 0 });
    const order: number[] = [];
    for (;;) {
      const [job] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
      if (!job) break;
      order.push(job.id);
    }
    expect(order).toEqual([high.id, mid.id, low.id, low2.id]);
    // A batch claim returns them in the same order.
    const queue2 = nextQueue();
    const a = await enqueue(database.db, { queue: queue2, priority: 1 });
    const b = await enqueue(database.db, { queue: queue2, priority: 9 });
    const batch = await claim(database.db, { queues: [queue2], owner, leaseMs: 10_000, limit: 5 });
    expect(batch.map((j) => j.id)).toEqual([b.id, a.id]);
  });

  it('never gives the same job to two concurrent claimers (SKIP LOCKED)', async () => {
    const queue = nextQueue();
    const ids = new Set<number>();
    for (let i = 0; i < 60; i++) ids.add((await enqueue(database.db, { queue, payload: { i } })).id);
    // Two independent connection pools, like two worker processes, racing for the jobs.
    const pools: [Database, Database] = [connect(database.url, { max: 4 }), connect(database.url, { max: 4 })];
    try {
      const drain = async (pool: Database) => {
        const got: number[] = [];
        for (;;) {
          const batch = await claim(pool.db, { queues: [queue], owner, leaseMs: 10_000, limit: 3 });
          if (batch.length === 0) return got;
          got.push(...batch.map((j) => j.id));
        }
      };
      const results = await Promise.all(pools.flatMap((p) => [drain(p), drain(p)]));
      const all = results.flat();
      expect(all.length).toBe(60);
      expect(new Set(all)).toEqual(ids);
      expect(results.filter((r) => r.length > 0).length).toBeGreaterThan(1);

      // A row locked by another transaction is skipped, not waited for.
      const queue2 = nextQueue();
      const first = await enqueue(database.db, { queue: queue2, priority: 9 });
      const second = await enqueue(database.db, { queue: queue2, priority: 1 });
      await pools[0].sql.begin(async (tx) => {
        await tx`select id from jobs where id = ${first.id} for update`;
        const started = Date.now();
        const [got] = await claim(pools[1].db, { queues: [queue2], owner, leaseMs: 10_000 });
        assert(got !== undefined, 'claim returned no job');
        expect(got.id).toBe(second.id);
        expect(Date.now() - started).toBeLessThan(2_000);
      });
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  it('re-claims a job whose lease expired, counting the attempt, and fences the old holder', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue });
    const [first] = await claim(database.db, { queues: [queue], owner: 'w1', leaseMs: 300 });
    assert(first !== undefined, 'claim returned no job');
    expect(first).toMatchObject({ id, attempts: 1, state: 'running', leaseOwner: 'w1' });
    expect(await claim(database.db, { queues: [queue], owner: 'w2', leaseMs: 300 })).toEqual([]);
    // Heartbeat keeps it held past the original expiry.
    await sleep(200);
    expect(await renewLease(database.db, id, first.leaseToken, 300)).toBeInstanceOf(Date);
    await sleep(200);
    expect(await claim(database.db, { queues: [queue], owner: 'w2', leaseMs: 300 })).toEqual([]);
    // No more heartbeats: the lease runs out and another worker takes the job.
    await sleep(350);
    const [second] = await claim(database.db, { queues: [queue], owner: 'w2', leaseMs: 10_000 });
    assert(second !== undefined, 'claim returned no job');
    expect(second).toMatchObject({ id, attempts: 2, leaseOwner: 'w2' });
    expect(second.leaseToken).not.toBe(first.leaseToken);

    // The old holder is fenced out of everything.
    let ran = false;
    const stale = await complete(database.db, id, first.leaseToken, async () => {
      ran = true;
    });
    expect(stale).toEqual({ completed: false, reason: 'lease lost (expired or re-claimed)' });
    expect(ran).toBe(false);
    expect(await renewLease(database.db, id, first.leaseToken, 10_000)).toBeNull();
    expect(await fail(database.db, id, first.leaseToken, new Error('late'))).toMatchObject({ outcome: 'ignored' });
    expect(await releaseLease(database.db, id, first.leaseToken)).toBe(false);

    const ok = await complete(database.db, id, second.leaseToken, async () => ({ answer: 42 }));
    expect(ok).toEqual({ completed: true, result: { answer: 42 } });
  });

  it('refuses to complete once the lease has expired even if nobody re-claimed it', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue });
    const [job] = await claim(database.db, { queues: [queue], owner, leaseMs: 150 });
    assert(job !== undefined, 'claim returned no job');
    await sleep(250);
    const r = await complete(database.db, id, job.leaseToken, async (tx) => {
      await tx.execute(sql`insert into effects (job_id) values (${id})`);
    });
    expect(r.completed).toBe(false);
    expect((await database.sql`select count(*)::int as n from effects where job_id = ${id}`)[0]?.n).toBe(0);
  });

  it('completes idempotently: the effect and the done mark commit together, once', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue });
    const [job] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(job !== undefined, 'claim returned no job');
    const effect = async (tx: Tx) => {
      await tx.execute(sql`insert into effects (job_id) values (${id}) on conflict (job_id) do update set n = effects.n + 1`);
    };
    const results = await Promise.all([complete(database.db, id, job.leaseToken, effect), complete(database.db, id, job.leaseToken, effect)]);
    expect(results.filter((r) => r.completed).length).toBe(1);
    expect(results.find((r) => !r.completed)).toEqual({ completed: false, reason: 'job already completed' });
    expect(await complete(database.db, id, job.leaseToken, effect)).toEqual({ completed: false, reason: 'job already completed' });
    const [row] = await database.sql`select n from effects where job_id = ${id}`;
    assert(row !== undefined, 'no row found');
    expect(row.n).toBe(1);
    const [done] = await database.db.select().from(jobs).where(eq(jobs.id, id));
    assert(done !== undefined, 'no row found');
    expect(done.state).toBe('done');
    expect(done.finishedAt).toBeInstanceOf(Date);

    // A failing effect rolls back: nothing applied, the job is still held and can be failed.
    const { id: id2 } = await enqueue(database.db, { queue });
    const [job2] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(job2 !== undefined, 'claim returned no job');
    await expect(
      complete(database.db, id2, job2.leaseToken, async (tx) => {
        await tx.execute(sql`insert into effects (job_id) values (${id2})`);
        throw new Error('effect broke');
      }),
    ).rejects.toThrow('effect broke');
    expect((await database.sql`select count(*)::int as n from effects where job_id = ${id2}`)[0]?.n).toBe(0);
    expect(await fail(database.db, id2, job2.leaseToken, new Error('effect broke'))).toMatchObject({ outcome: 'retry' });
  });

  it('deduplicates enqueues by idempotency key', async () => {
    const queue = nextQueue();
    const a = await enqueue(database.db, { queue, idempotencyKey: 'episode-7' });
    const b = await enqueue(database.db, { queue, idempotencyKey: 'episode-7', payload: { other: true } });
    const c = await enqueue(database.db, { queue, idempotencyKey: 'episode-8' });
    expect(a.created).toBe(true);
    expect(b).toEqual({ id: a.id, created: false });
    expect(c.id).not.toBe(a.id);
    await expect(enqueue(database.db, { queue: 'Bad Name!' })).rejects.toThrow(/queue names/);
  });

  it('retries with exponential backoff and jitter', async () => {
    const policy = { baseMs: 1_000, maxMs: 60_000 };
    expect(backoffMs(1, policy, () => 0)).toBe(500);
    expect(backoffMs(1, policy, () => 1)).toBe(1_000);
    expect(backoffMs(3, policy, () => 0)).toBe(2_000);
    expect(backoffMs(3, policy, () => 1)).toBe(4_000);
    expect(backoffMs(20, policy, () => 1)).toBe(60_000);
    const samples = new Set(Array.from({ length: 20 }, () => backoffMs(4, policy)));
    expect(samples.size).toBeGreaterThan(1);
    for (const s of samples) {
      expect(s).toBeGreaterThanOrEqual(4_000);
      expect(s).toBeLessThanOrEqual(8_000);
    }

    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue });
    const [job] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(job !== undefined, 'claim returned no job');
    const r = await fail(database.db, id, job.leaseToken, new Error('flaky'), { backoff: { baseMs: 400, maxMs: 10_000 } });
    expect(r).toMatchObject({ outcome: 'retry', attempts: 1 });
    const [row] = await database.db.select().from(jobs).where(eq(jobs.id, id));
    assert(row !== undefined, 'no row found');
    expect(row).toMatchObject({ state: 'queued', leaseToken: null, attempts: 1 });
    expect(row.lastError).toContain('flaky');
    // Not runnable until the backoff has passed.
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 })).toEqual([]);
    await sleep(450);
    const [again] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    expect(again).toMatchObject({ id, attempts: 2 });
  });

  it('dead-letters after maxAttempts with the last error kept', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue, maxAttempts: 3 });
    const fast = { baseMs: 1, maxMs: 1 };
    for (let attempt = 1; attempt <= 3; attempt++) {
      let job;
      while (!(job = (await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 }))[0])) await sleep(5);
      const r = await fail(database.db, id, job.leaseToken, new Error(`boom ${attempt}`), { backoff: fast });
      expect(r.outcome).toBe(attempt < 3 ? 'retry' : 'dead');
    }
    await sleep(10);
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 })).toEqual([]);
    const [row] = await database.db.select().from(jobs).where(eq(jobs.id, id));
    assert(row !== undefined, 'no row found');
    expect(row).toMatchObject({ state: 'dead', attempts: 3 });
    expect(row.lastError).toContain('boom 3');
    expect(row.lastError).not.toContain('boom 2');

    // A worker dying on the last allowed attempt also dead-letters (on the next claim).
    const { id: id2 } = await enqueue(database.db, { queue, maxAttempts: 1 });
    await claim(database.db, { queues: [queue], owner: 'doomed', leaseMs: 100 });
    await sleep(200);
    const { id: id3 } = await enqueue(database.db, { queue });
    const [next] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(next !== undefined, 'claim returned no job');
    expect(next.id).toBe(id3);
    const [row2] = await database.db.select().from(jobs).where(eq(jobs.id, id2));
    assert(row2 !== undefined, 'no row found');
    expect(row2.state).toBe('dead');
    expect(row2.lastError).toMatch(/lease expired on the last attempt \(worker doomed/);

    // Errors that retrying cannot fix go straight to dead.
    const { id: id4 } = await enqueue(database.db, { queue: nextQueue(), maxAttempts: 5 });
    const [job4] = await claim(database.db, { queues: [`t${q}`], owner, leaseMs: 10_000 });
    assert(job4 !== undefined, 'claim returned no job');
    expect(await fail(database.db, id4, job4.leaseToken, 'bad payload', { retry: false })).toEqual({ outcome: 'dead', attempts: 1 });
  });

  it('releases a job on clean shutdown without counting the attempt', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue });
    const [job] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(job !== undefined, 'claim returned no job');
    expect(await releaseLease(database.db, id, job.leaseToken)).toBe(true);
    const [again] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    expect(again).toMatchObject({ id, attempts: 1 });
  });

  it('wakes a waiting claimer by NOTIFY well before its poll interval', async () => {
    const queue = nextQueue();
    const listener = connect(database.url, { max: 2 });
    const wakeup = await JobWakeup.listen(listener.sql, [queue]);
    try {
      // Another queue's jobs do not wake us.
      const mark0 = wakeup.mark();
      await enqueue(database.db, { queue: `${queue}-other` });
      expect(await wakeup.wait(mark0, 300)).toBe('timeout');

      const mark = wakeup.mark();
      expect(await claim(listener.db, { queues: [queue], owner, leaseMs: 10_000 })).toEqual([]);
      const started = Date.now();
      const waiting = wakeup.wait(mark, 30_000);
      setTimeout(() => void enqueue(database.db, { queue, payload: { hello: 1 } }), 50);
      expect(await waiting).toBe('notified');
      const [job] = await claim(listener.db, { queues: [queue], owner, leaseMs: 10_000 });
      assert(job !== undefined, 'claim returned no job');
      const latency = Date.now() - started - 50;
      expect(job.payload).toEqual({ hello: 1 });
      expect(latency).toBeLessThan(1_000);
      console.log(`NOTIFY wake-up latency: ${latency} ms`);

      // A notification between the claim and the wait is not lost.
      const mark2 = wakeup.mark();
      await enqueue(database.db, { queue });
      await sleep(100);
      expect(await wakeup.wait(mark2, 5_000)).toBe('notified');
    } finally {
      await wakeup.close();
      await listener.close();
    }
  });
});
