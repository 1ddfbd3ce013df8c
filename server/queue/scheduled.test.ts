import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { assert, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { jobs, runs, workers } from '@/db/schema';
import { defaultRunConfig, runConfigSchema } from '@/core/run-config';
import { freshDatabase } from '@/test/database';
import { claim, enqueue, fail, heartbeatLease, LEARNER_REQUEST, releaseLease, yieldPreempted } from './index';

// The queue side of scheduled workloads, on a real database: what a job requests, and that
// claims respect admissions (node, victims stopped) while a scheduler runs.

let database: Database;
const owner = 'test-worker';
let q = 0;
const nextQueue = () => `sched${++q}`;
const workload = { tier: 'standard', request: { cpu: 1, memoryMb: 256 } };
const row = async (id: number) => (await database.db.select().from(jobs).where(eq(jobs.id, id)))[0];
const admit = (id: number, node: string) =>
  database.db
    .update(jobs)
    .set({ admittedNode: node, admittedAt: sql`now()` })
    .where(eq(jobs.id, id));

beforeAll(async () => {
  database = await freshDatabase();
});

describe('scheduled workloads in the queue', () => {
  it("gives RL jobs their run's tier and request; other jobs stay unscheduled; bad workloads are refused", async () => {
    const config = runConfigSchema.parse({ ...defaultRunConfig, queue: 'critical', quota: { cpus: 0.25, memoryMb: 4096, scratchMb: 1024 } });
    const [run] = await database.db.insert(runs).values({ name: 'sched-run', config }).returning();
    assert(run !== undefined, 'no row found');
    const ep = await enqueue(database.db, { queue: 'rl.episode', runId: run.id, payload: { runId: run.id, episodeId: randomUUID() }, priority: 100 });
    expect(await row(ep.id)).toMatchObject({
      tier: 'critical',
      priority: 100,
      admittedNode: null,
      // the quota caps the sandbox's 0.5 CPU; memory and scratch are the sandbox's, under the quota
      request: { cpu: 0.25, memoryMb: 512, gpu: 0, gpuMemoryMb: 0, diskMb: 256 },
    });
    const learn = await enqueue(database.db, { queue: 'rl.learn', runId: run.id, payload: { runId: run.id, iteration: 0 } });
    expect(await row(learn.id)).toMatchObject({ tier: 'critical', request: LEARNER_REQUEST });
    const other = await enqueue(database.db, { queue: nextQueue(), runId: run.id });
    expect((await row(other.id))?.tier).toBeNull();
    const explicit = await enqueue(database.db, { queue: nextQueue(), workload: { tier: 'best-effort', queue: 'team-a', request: { gpu: 1 } } });
    expect(await row(explicit.id)).toMatchObject({ tier: 'best-effort', workloadQueue: 'team-a', request: { cpu: 0, gpu: 1 } });
    await expect(enqueue(database.db, { queue: nextQueue(), workload: { tier: 'standard', request: {} } })).rejects.toThrow(/must request some resource/);
    await expect(enqueue(database.db, { queue: nextQueue(), workload: { tier: 'Top Tier', request: { cpu: 1 } } })).rejects.toThrow(/tier names/);
  });

  it('without a running scheduler, anyone claims scheduled jobs (no admission); with one, only the admitted node', async () => {
    const queue = nextQueue();
    const { id } = await enqueue(database.db, { queue, workload });
    const [fallback] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 });
    assert(fallback !== undefined, 'claim returned no job');
    expect(fallback.id).toBe(id);
    expect(await releaseLease(database.db, id, fallback.leaseToken)).toBe(true);

    await database.db
      .insert(workers)
      .values({ id: 'sched-1', kind: 'scheduler', hostname: 'h', pid: 1, capacity: { cpus: 1, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 0 } });
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 })).toEqual([]);
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' })).toEqual([]);
    await admit(id, 'n1');
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n2' })).toEqual([]);
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 })).toEqual([]);
    const [mine] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' });
    assert(mine !== undefined, 'claim returned no job');
    expect(mine).toMatchObject({ id, admittedNode: 'n1' });
    expect(mine.startedAt).toBeInstanceOf(Date);
    // Unscheduled jobs are claimed as before, by everybody.
    const plain = await enqueue(database.db, { queue });
    expect((await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 }))[0]?.id).toBe(plain.id);

    // A failed attempt waits out its backoff unadmitted, holding no node.
    expect(await fail(database.db, id, mine.leaseToken, new Error('flaky'), { backoff: { baseMs: 1, maxMs: 1 } })).toMatchObject({ outcome: 'retry' });
    expect(await row(id)).toMatchObject({ state: 'queued', admittedNode: null, admittedAt: null, startedAt: null });
    // A heartbeat that stopped makes the scheduler count as gone again.
    await database.db
      .update(workers)
      .set({ heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(workers.id, 'sched-1'));
    await new Promise((r) => setTimeout(r, 5));
    expect((await claim(database.db, { queues: [queue], owner, leaseMs: 10_000 }))[0]?.id).toBe(id);
    await database.db.delete(workers).where(eq(workers.id, 'sched-1'));
  });

  it('a preemptor starts only after its victim stopped; the victim is told on its heartbeat and goes back uncounted', async () => {
    await database.db
      .insert(workers)
      .values({ id: 'sched-2', kind: 'scheduler', hostname: 'h', pid: 2, capacity: { cpus: 1, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 0 } });
    const queue = nextQueue();
    const victim = await enqueue(database.db, { queue, workload: { tier: 'best-effort', request: { cpu: 1 } } });
    await admit(victim.id, 'n1');
    const [held] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' });
    assert(held !== undefined, 'claim returned no job');
    expect((await heartbeatLease(database.db, victim.id, held.leaseToken, 10_000)).preempted).toBeNull();

    const critical = await enqueue(database.db, { queue, workload: { tier: 'critical', request: { cpu: 1 } } });
    // What the scheduler writes: the victim marked, the preemptor admitted to the same node.
    await database.db
      .update(jobs)
      .set({ preemptedAt: sql`now()`, preemptedBy: critical.id, preemptions: 1, lastRequeueReason: 'priority: preempted by a test', runAfter: sql`now()` })
      .where(eq(jobs.id, victim.id));
    await admit(critical.id, 'n1');
    expect(await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' })).toEqual([]);

    const beat = await heartbeatLease(database.db, victim.id, held.leaseToken, 10_000);
    expect(beat).toMatchObject({ preempted: 'priority: preempted by a test' });
    expect(beat.expiresAt).toBeInstanceOf(Date);
    expect(await yieldPreempted(database.db, victim.id, 'b0000000-0000-4000-8000-000000000000')).toBe(false); // fenced
    expect(await yieldPreempted(database.db, victim.id, held.leaseToken)).toBe(true);
    expect(await row(victim.id)).toMatchObject({
      state: 'queued',
      attempts: 0,
      admittedNode: null,
      leaseToken: null,
      preemptedAt: null,
      preemptedBy: null,
      preemptions: 1,
      lastRequeueReason: 'priority: preempted by a test',
    });
    const [started] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' });
    assert(started !== undefined, 'claim returned no job');
    expect(started.id).toBe(critical.id);

    // Preempted while it was failing anyway: the retry must not start out preempted.
    await database.db
      .update(jobs)
      .set({ preemptedAt: sql`now()`, preemptedBy: victim.id })
      .where(eq(jobs.id, critical.id));
    await fail(database.db, critical.id, started.leaseToken, new Error('crashed'), { backoff: { baseMs: 1, maxMs: 1 } });
    expect(await row(critical.id)).toMatchObject({ state: 'queued', preemptedAt: null, preemptedBy: null, admittedNode: null });
    await new Promise((r) => setTimeout(r, 5));
    await admit(critical.id, 'n1');
    const [retry] = await claim(database.db, { queues: [queue], owner, leaseMs: 10_000, node: 'n1' });
    assert(retry !== undefined, 'claim returned no job');
    expect(retry.id).toBe(critical.id);
    expect((await heartbeatLease(database.db, critical.id, retry.leaseToken, 10_000)).preempted).toBeNull();
    await database.db.delete(workers).where(eq(workers.id, 'sched-2'));
  });
});
