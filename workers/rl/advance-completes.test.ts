import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { auditLog, jobs, runEvents, runs } from '@/db/schema';
import { applyRunTransition } from '@/server/runs/lifecycle';
import { createRun, transitionRun } from '@/server/runs/service';
import { freshDatabase } from '@/test/database';
import { createRlHandlers } from './handlers';

let database: Database;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-advance-'));
// built, not started: the advance job of a running run needs no policy or sandbox
const handlers = createRlHandlers(parseSettings({}), { dataDir });
const advance = handlers.find((h) => h.queue === 'rl.advance')!;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  for (const h of handlers) await h.close?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('rl.advance and the run lifecycle', () => {
  it('completes a run whose last iteration was trained while it was paused, once it is resumed', async () => {
    const db = database.db;
    const run = await createRun(db, { name: 'trained while paused', config: { iterations: 2 } }, 'user:op');
    await db.transaction((tx) => applyRunTransition(tx, run.id, 'start', 'system:rl.advance'));
    await transitionRun(db, run.id, 'pause', 'user:op');
    // the learner's last step committed meanwhile: it may not complete a paused run
    await db.update(runs).set({ currentIteration: 2 }).where(eq(runs.id, run.id));
    await transitionRun(db, run.id, 'resume', 'user:op');
    const [job] = await db
      .select()
      .from(jobs)
      .where(and(eq(jobs.queue, 'rl.advance'), eq(jobs.runId, run.id)))
      .orderBy(desc(jobs.id))
      .limit(1);
    const claimed = { ...job!, leaseToken: crypto.randomUUID(), leaseExpiresAt: new Date(Date.now() + 60_000) };
    const effect = await advance.run(claimed, { db, workerId: 'test', signal: new AbortController().signal, log: () => {} });
    await db.transaction(async (tx) => {
      await effect!(tx, claimed);
    });
    const [after] = await db.select().from(runs).where(eq(runs.id, run.id));
    expect(after!.status).toBe('completed');
    const [last] = await db.select().from(runEvents).where(eq(runEvents.runId, run.id)).orderBy(desc(runEvents.id)).limit(1);
    expect(last).toMatchObject({ type: 'completed', fromStatus: 'running', toStatus: 'completed', actor: 'system:rl.advance' });
    const [audit] = await db.select().from(auditLog).where(eq(auditLog.targetId, run.id)).orderBy(desc(auditLog.seq)).limit(1);
    expect(audit).toMatchObject({ action: 'run.complete', actor: 'system:rl.advance' });
  });
});
