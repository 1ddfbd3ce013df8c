import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, policyVersions } from '@/db/schema';
import { createRun, transitionRun } from '@/server/runs/service';
import { inProcessRl, phaseRows, TINY_RL_ENV, untilRun } from './rl.testkit';

// Cancelling a run stops the minutes-long work of its in-flight job (./run-end-watch.ts): the
// SFT warm start at its next step, a held-out evaluation at its next attempt. The warm start
// here is 100,000 steps (about an hour on two cores), so a job that ignored the cancel would
// run into the ceiling; the ceiling is only a safety net that says how far the job got.
const logs: string[] = [];
const rl = await inProcessRl('cancel', { ...TINY_RL_ENV, CRUCIBLE_RL_SFT_STEPS: '100000' }, { log: (m) => logs.push(m) });
const { db } = rl;
beforeAll(() => rl.start());
afterAll(() => rl.stop());

const config = { seed: 5, iterations: 2, tasksPerIteration: 2, groupSize: 2, maxTurns: 1, concurrency: 2 };
const phases = (runId: string) => phaseRows(db, runId);
const line = (p: { phase: string; state: string; subject?: string }) => `${p.phase}:${p.state}${p.subject ? ` ${p.subject}` : ''}`;

/** The run's rl.advance jobs, once none is queued or running (done: completed with no effect). */
async function advanceEnded(runId: string) {
  let rows: (typeof jobs.$inferSelect)[] = [];
  await untilRun(
    db,
    runId,
    'its rl.advance job to stop',
    async () => {
      rows = await db
        .select()
        .from(jobs)
        .where(and(eq(jobs.runId, runId), eq(jobs.queue, 'rl.advance')));
      return rows.length > 0 && rows.every((r) => r.state !== 'running' && r.state !== 'queued');
    },
    120_000,
    () => `jobs ${JSON.stringify(rows.map((r) => ({ state: r.state, attempts: r.attempts })))}; log ${JSON.stringify(logs.slice(-3))}`,
  );
  return rows;
}

describe('a cancelled run stops the work of its in-flight job', () => {
  it('the SFT warm start stops at its next step: the job ends done, no policy version 0, no "finished"', async () => {
    const run = await createRun(db, { name: 'cancel during sft', config }, 'test');
    await untilRun(db, run.id, 'the SFT warm start to start', async () => (await phases(run.id)).some((p) => p.phase === 'sft'), 120_000);
    await transitionRun(db, run.id, 'cancel', 'user:op');
    const [job] = await advanceEnded(run.id);
    // completed with no effect, not failed and retried: the run is cancelled, nothing is lost
    expect(job).toMatchObject({ state: 'done', attempts: 1 });
    expect((await phases(run.id)).map(line)).toEqual(['heldout_eval:started the initialisation', 'heldout_eval:finished the initialisation', 'sft:started']);
    expect(await db.select().from(policyVersions).where(eq(policyVersions.runId, run.id))).toEqual([]);
    expect(logs.some((m) => m.includes(`run ${run.id} is cancelled; stopped the work it no longer needs`))).toBe(true);
  });

  it('a held-out evaluation stops at its next attempt', async () => {
    // every held-out task of the suite, one greedy attempt each: far more attempts than one poll lets through
    const run = await createRun(db, { name: 'cancel during held-out', config: { ...config, heldout: { tasks: 0 } } }, 'test');
    await untilRun(db, run.id, 'the first held-out evaluation to start', async () => (await phases(run.id)).some((p) => p.phase === 'heldout_eval'), 120_000);
    await transitionRun(db, run.id, 'cancel', 'user:op');
    const [job] = await advanceEnded(run.id);
    expect(job).toMatchObject({ state: 'done', attempts: 1 });
    expect((await phases(run.id)).map(line)).toEqual(['heldout_eval:started the initialisation']);
  });
});
