import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { episodes, policyVersions, rewards } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { freshDatabase } from '@/test/database';
import { alive, startTs, type Proc } from '@/workers/jobs/fixtures/processes';
import { ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';
import { rlTestDirs, TINY_RL_ENV, untilRun } from './rl.testkit';

let database: Database;
const procs: Proc[] = [];
const dirs = rlTestDirs('resume');

beforeAll(async () => {
  ensureTestEnvironment();
  database = await freshDatabase();
});
afterAll(async () => {
  for (const p of procs) if (alive(p.pid)) p.child.kill('SIGKILL');
});

/** A real job-worker process with the default handlers (the RL loop among them), as `npm start` runs it. */
const worker = () => {
  const p = startTs('workers/job-worker/main.ts', ['--concurrency', '2', '--poll-ms', '300'], {
    DATABASE_URL: database.url,
    ...dirs,
    ...TINY_RL_ENV,
    CRUCIBLE_RL_LEASE_MS: '4000',
    CRUCIBLE_WORKER_HEARTBEAT_MS: '500',
  });
  procs.push(p);
  return p;
};

describe('RL run survives kill -9 of its worker (real processes)', () => {
  it('resumes from the last checkpoint with no episode lost or counted twice', async () => {
    const { db } = database;
    const a = worker();
    const run = await createRun(
      db,
      { name: 'resume', config: { seed: 11, iterations: 3, tasksPerIteration: 2, groupSize: 2, maxTurns: 1, concurrency: 1, klCoef: 0 } },
      'test',
    );
    const scoredIn = async (iteration: number) => {
      const [r] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(episodes)
        .where(and(eq(episodes.runId, run.id), eq(episodes.iteration, iteration), eq(episodes.status, 'scored')));
      return r!.n;
    };
    // Kill mid-iteration: iteration 1 has started (a checkpoint exists past v0) and has some, not all, episodes done.
    await untilRun(
      db,
      run.id,
      'iteration 1 to be part done',
      async (r) => r.currentIteration === 1 && (await scoredIn(1)) >= 1 && (await scoredIn(1)) < 4,
      150_000,
      () => a.output().slice(-800),
    );
    a.child.kill('SIGKILL');
    await a.exited;
    const before = await db
      .select({ id: rewards.id, episodeId: rewards.episodeId, value: rewards.value })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .where(eq(episodes.runId, run.id));
    expect(before.length).toBeGreaterThanOrEqual(5); // iteration 0's four and at least one of iteration 1

    const b = worker();
    const done = await untilRun(
      db,
      run.id,
      'the run to complete after restart',
      (r) => r.status === 'completed' || r.status === 'failed',
      150_000,
      () => b.output().slice(-800),
    );
    expect(done.status).toBe('completed');
    expect(done.currentIteration).toBe(3);

    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(12); // 3 iterations × 2 tasks × 2 samples: no slot lost, none duplicated
    expect(eps.every((e) => e.status === 'scored')).toBe(true);
    expect(done.episodesDone).toBe(12);
    const after = await db
      .select({ id: rewards.id, episodeId: rewards.episodeId, value: rewards.value })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .where(eq(episodes.runId, run.id));
    expect(after).toHaveLength(12);
    expect(new Set(after.map((r) => r.episodeId)).size).toBe(12);
    // what was finished before the kill is kept as it was, not re-run
    for (const r of before) expect(after).toContainEqual(r);
    const versions = await db.select({ v: policyVersions.version }).from(policyVersions).where(eq(policyVersions.runId, run.id));
    expect(versions.map((v) => v.v).sort()).toEqual([0, 1, 2, 3]);
    b.child.kill('SIGTERM');
    await b.exited;
  }, 320_000);
});
