import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { auditLog, jobs, runEvents, runs } from '@/db/schema';
import { verifyAudit } from '@/server/audit/service';
import { freshDatabase, ownerConnection } from '@/test/database';
import { defaultRunConfig } from '@/core/run-config';
import { applyRunTransition, tryRunTransition } from './lifecycle';
import { cloneRun, createRun, transitionRun } from './service';

let database: Database;
let owner: Database;
beforeAll(async () => {
  database = await freshDatabase();
  owner = ownerConnection(database);
});

const db = () => database.db;
const status = async (id: string) => (await db().select({ s: runs.status }).from(runs).where(eq(runs.id, id)))[0]?.s;
const events = (id: string) => db().select().from(runEvents).where(eq(runEvents.runId, id)).orderBy(runEvents.id);
const audits = (id: string) => db().select().from(auditLog).where(eq(auditLog.targetId, id)).orderBy(auditLog.seq);
const advanceJobs = (id: string) =>
  db()
    .select()
    .from(jobs)
    .where(and(eq(jobs.queue, 'rl.advance'), eq(jobs.runId, id)));
const count = async (table: typeof runs | typeof auditLog | typeof jobs | typeof runEvents) =>
  (
    await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(table)
  )[0]!.n;

describe('run lifecycle (server/runs/lifecycle.ts)', () => {
  it("system transitions write their run event and an audit row in the caller's transaction; the chain verifies", async () => {
    const run = await createRun(db(), { name: 'system', config: {} }, 'user:op');
    await db().transaction((tx) => applyRunTransition(tx, run.id, 'start', 'system:rl.advance', { message: 'training started from policy version 0' }));
    await db().transaction((tx) => applyRunTransition(tx, run.id, 'complete', 'system:rl.learn', { message: 'iteration 0 trained', data: { iteration: 0 } }));
    const after = (await db().select().from(runs).where(eq(runs.id, run.id)))[0]!;
    expect(after.status).toBe('completed');
    expect(after.startedAt).not.toBeNull();
    expect(after.finishedAt).not.toBeNull();
    expect((await events(run.id)).map((e) => [e.type, e.fromStatus, e.toStatus, e.actor])).toEqual([
      ['created', null, 'queued', 'user:op'],
      ['started', 'queued', 'running', 'system:rl.advance'],
      ['completed', 'running', 'completed', 'system:rl.learn'],
    ]);
    expect((await audits(run.id)).map((a) => [a.action, a.actor, a.details])).toEqual([
      ['run.create', 'user:op', expect.anything()],
      ['run.start', 'system:rl.advance', { from: 'queued', to: 'running' }],
      ['run.complete', 'system:rl.learn', { from: 'running', to: 'completed' }],
    ]);
    expect(await verifyAudit(db())).toMatchObject({ ok: true });

    // a failure is all or nothing with the caller's other writes: a rollback leaves no trace
    const other = await createRun(db(), { name: 'rolled back', config: {} }, 'user:op');
    const before = { audit: await count(auditLog), events: await count(runEvents), jobs: await count(jobs) };
    await expect(
      db().transaction(async (tx) => {
        await applyRunTransition(tx, other.id, 'fail', 'system:rl.episode', { message: 'gave up', error: 'gave up' });
        throw new Error("the job's completion failed");
      }),
    ).rejects.toThrow(/completion failed/);
    expect(await status(other.id)).toBe('queued');
    expect({ audit: await count(auditLog), events: await count(runEvents), jobs: await count(jobs) }).toEqual(before);

    await db().transaction((tx) =>
      applyRunTransition(tx, other.id, 'fail', 'system:rl.episode', { message: 'rl.episode gave up', error: 'rl.episode gave up' }),
    );
    const failed = (await db().select().from(runs).where(eq(runs.id, other.id)))[0]!;
    expect([failed.status, failed.error]).toEqual(['failed', 'rl.episode gave up']);
    expect((await audits(other.id)).at(-1)).toMatchObject({
      action: 'run.fail',
      actor: 'system:rl.episode',
      details: { from: 'queued', to: 'failed', error: 'rl.episode gave up' },
    });
    expect(await verifyAudit(db())).toMatchObject({ ok: true });
  });

  it("refuses a transition the run's status does not allow, writing nothing", async () => {
    const run = await createRun(db(), { name: 'illegal', config: {} }, 'user:op');
    await transitionRun(db(), run.id, 'cancel', 'user:op');
    const before = { events: (await events(run.id)).length, audits: (await audits(run.id)).length };
    await expect(db().transaction((tx) => applyRunTransition(tx, run.id, 'start', 'system:rl.advance'))).rejects.toThrow(
      'run is cancelled; a cancelled run cannot be started. Clone it to run the same config again.',
    );
    await expect(db().transaction((tx) => applyRunTransition(tx, run.id, 'complete', 'system:rl.learn'))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await db().transaction((tx) => tryRunTransition(tx, run.id, 'fail', 'system:rl.learn', { error: 'late' }))).toBeNull();
    const paused = await createRun(db(), { name: 'paused', config: {} }, 'user:op');
    await transitionRun(db(), paused.id, 'pause', 'user:op');
    // the learner finishing a paused run's last iteration does not complete it behind the operator's back
    expect(await db().transaction((tx) => tryRunTransition(tx, paused.id, 'complete', 'system:rl.learn'))).toBeNull();
    expect([await status(run.id), await status(paused.id)]).toEqual(['cancelled', 'paused']);
    expect({ events: (await events(run.id)).length, audits: (await audits(run.id)).length }).toEqual(before);
    await expect(db().transaction((tx) => applyRunTransition(tx, '00000000-0000-4000-8000-000000000000', 'pause', 'user:op'))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("creating and resuming a run enqueue the RL loop's advance job from TypeScript; pause does not; the old trigger is gone", async () => {
    const run = await createRun(db(), { name: 'wake', config: {} }, 'user:op');
    expect(await advanceJobs(run.id)).toHaveLength(1);
    await transitionRun(db(), run.id, 'pause', 'user:op');
    expect(await advanceJobs(run.id)).toHaveLength(1);
    await transitionRun(db(), run.id, 'resume', 'user:op');
    const woken = await advanceJobs(run.id);
    expect(woken).toHaveLength(2);
    expect(woken.every((j) => j.payload.runId === run.id && j.priority === 10 && j.maxAttempts === 20)).toBe(true);
    await db().transaction((tx) => applyRunTransition(tx, run.id, 'start', 'system:rl.advance'));
    expect(await advanceJobs(run.id)).toHaveLength(3);
    await transitionRun(db(), run.id, 'cancel', 'user:op');
    expect(await advanceJobs(run.id)).toHaveLength(3);
    // no second producer: a run written around the lifecycle wakes nothing
    const [bare] = await db().insert(runs).values({ name: 'bare insert', config: defaultRunConfig }).returning();
    await db().update(runs).set({ status: 'running' }).where(eq(runs.id, bare!.id));
    expect(await advanceJobs(bare!.id)).toHaveLength(0);
    const triggers = await owner.sql`select tgname from pg_trigger where tgrelid = 'runs'::regclass and not tgisinternal`;
    expect(triggers).toEqual([]);
  });

  it('cloneRun is one transaction: a failure midway leaves no run, event, audit row or job', async () => {
    const source = await createRun(db(), { name: 'to clone', config: { learningRate: 1e-3 }, controlArm: true }, 'user:op');
    // a real failure after the clone's runs are inserted: refuse its "cloned" event
    await owner.sql.unsafe(`
      create function refuse_cloned_event() returns trigger as $$ begin raise exception 'refusing the cloned event (test)'; end $$ language plpgsql;
      create trigger refuse_cloned_event before insert on run_events for each row when (new.type = 'cloned') execute function refuse_cloned_event();`);
    const before = { runs: await count(runs), audit: await count(auditLog), events: await count(runEvents), jobs: await count(jobs) };
    try {
      await expect(cloneRun(db(), source.id, 'user:op', null)).rejects.toMatchObject({
        cause: expect.objectContaining({ message: expect.stringMatching(/refusing the cloned event/) }),
      });
    } finally {
      await owner.sql.unsafe('drop trigger refuse_cloned_event on run_events; drop function refuse_cloned_event();');
    }
    expect({ runs: await count(runs), audit: await count(auditLog), events: await count(runEvents), jobs: await count(jobs) }).toEqual(before);
    const clone = await cloneRun(db(), source.id, 'user:op', null);
    expect(clone.clonedFrom).toBe(source.id);
    expect((await events(clone.id)).map((e) => e.type)).toEqual(['created', 'cloned']);
    expect(await count(runs)).toBe(before.runs + 2); // the clone and its control arm
  });
});
