import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { auditLog, jobs, runEvents, runs } from '@/db/schema';
import { verifyAudit } from '@/server/audit/service';
import { createRun, transitionRun } from '@/server/runs/service';
import { z } from 'zod';
import { PermanentJobError, validatedPayload, type JobContext, type JobHandler } from '@/workers/jobs/job-handler';
import { freshDatabase } from '@/test/database';
import { failRunOnGiveUp } from './give-up';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const refusing: JobHandler = {
  queue: 'rl.advance',
  run: async () => {
    throw new PermanentJobError('checkpoint v1 does not match its recorded sha256');
  },
};

/** The run's rl.advance job (enqueued by createRun), as a worker holding it would see it. */
async function claimedAdvance(runId: string) {
  const [job] = await database.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.queue, 'rl.advance'), eq(jobs.runId, runId)));
  return { ...job!, attempts: 1, leaseToken: crypto.randomUUID(), leaseExpiresAt: new Date(Date.now() + 60_000) };
}
const ctx = (): JobContext => ({ db: database.db, workerId: 'test', signal: new AbortController().signal, log: () => {} });

describe('an RL job that gives up fails its run through the lifecycle', () => {
  it('the run is failed with the reason, a "failed" event and a system audit row, in the job\'s completion transaction', async () => {
    const run = await createRun(database.db, { name: 'gives up', config: {} }, 'user:op');
    const job = await claimedAdvance(run.id);
    const effect = await failRunOnGiveUp(refusing).run(job, ctx());
    expect(typeof effect).toBe('function');
    await database.db.transaction(async (tx) => {
      await effect!(tx, job);
    });
    const [after] = await database.db.select().from(runs).where(eq(runs.id, run.id));
    expect(after!.status).toBe('failed');
    expect(after!.error).toBe('rl.advance gave up after 1 attempt(s): checkpoint v1 does not match its recorded sha256');
    const [failed] = await database.db
      .select()
      .from(runEvents)
      .where(and(eq(runEvents.runId, run.id), eq(runEvents.type, 'failed')));
    expect(failed).toMatchObject({ fromStatus: 'queued', toStatus: 'failed', actor: 'system:rl.advance', message: after!.error });
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.targetId, run.id));
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ['run.create', 'user:op'],
      ['run.fail', 'system:rl.advance'],
    ]);
    expect(await verifyAudit(database.db)).toMatchObject({ ok: true });
  });

  it('a run paused meanwhile is left paused: fail is not allowed from paused', async () => {
    const run = await createRun(database.db, { name: 'paused first', config: {} }, 'user:op');
    const job = await claimedAdvance(run.id);
    const effect = await failRunOnGiveUp(refusing).run(job, ctx());
    await transitionRun(database.db, run.id, 'pause', 'user:op');
    await database.db.transaction(async (tx) => {
      await effect!(tx, job);
    });
    const [after] = await database.db.select().from(runs).where(eq(runs.id, run.id));
    expect([after!.status, after!.error]).toEqual(['paused', null]);
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.targetId, run.id));
    expect(audit.map((a) => a.action)).toEqual(['run.create', 'run.pause']);
  });

  it("a payload that does not fit the handler's schema fails the run too, not only the job", async () => {
    const strict: JobHandler = { queue: 'rl.advance', payload: z.object({ runId: z.string(), phase: z.literal('never-sent') }), run: async () => {} };
    const run = await createRun(database.db, { name: 'bad payload', config: {} }, 'user:op');
    const job = await claimedAdvance(run.id);
    const wrapped = failRunOnGiveUp(strict);
    // as the job loop does: check the payload against the handler's schema, then run it
    const effect = await wrapped.run({ ...job, payload: validatedPayload(wrapped, job) }, ctx());
    await database.db.transaction(async (tx) => {
      await effect!(tx, job);
    });
    const [after] = await database.db.select().from(runs).where(eq(runs.id, run.id));
    expect(after!.status).toBe('failed');
    expect(after!.error).toMatch(/bad rl\.advance payload .*phase/);
  });
});
