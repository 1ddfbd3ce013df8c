import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, jobs, metricSamples, rewards, runEvents, turns } from '@/db/schema';
import { createRun, transitionRun } from '@/server/runs/service';
import { inProcessRl, TINY_RL_ENV, untilRun } from './rl.testkit';

const rl = await inProcessRl('control', TINY_RL_ENV);
const { db } = rl;
beforeAll(() => rl.start());
afterAll(() => rl.stop());

const tiny = { iterations: 2, tasksPerIteration: 2, groupSize: 2, maxTurns: 1, concurrency: 1, klCoef: 0 };
const count = async (runId: string, status: string) => {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(episodes)
    .where(and(eq(episodes.runId, runId), sql`${episodes.status} = ${status}`));
  return r!.n;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RL run control mid-iteration (real Postgres, sandboxes, ONNX policy)', () => {
  it('pause stops dispatching but keeps the episode in flight; resume finishes every slot exactly once', async () => {
    const run = await createRun(db, { name: 'pause', config: { ...tiny, seed: 21 } }, 'test');
    await untilRun(db, run.id, 'a first scored episode', async (r) => r.status === 'running' && (await count(run.id, 'scored')) >= 1, 120_000);
    await transitionRun(db, run.id, 'pause', 'test');
    // The episode in flight (concurrency 1) finishes and is kept; nothing new starts.
    await untilRun(db, run.id, 'the in-flight episode to settle', async () => (await count(run.id, 'running')) === 0, 60_000);
    const settled = await count(run.id, 'scored');
    await sleep(2500);
    expect(await count(run.id, 'scored')).toBe(settled);
    expect(await count(run.id, 'running')).toBe(0);
    expect(await count(run.id, 'pending')).toBeGreaterThan(0);
    const [learns] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(jobs)
      .where(and(eq(jobs.queue, 'rl.learn'), eq(jobs.runId, run.id)));
    expect(learns!.n).toBe(0);

    await transitionRun(db, run.id, 'resume', 'test');
    const done = await untilRun(db, run.id, 'completion after resume', (r) => r.status === 'completed' || r.status === 'failed', 150_000);
    expect(done.status).toBe('completed');
    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(8);
    expect(eps.every((e) => e.status === 'scored')).toBe(true);
    const [r] = await db
      .select({ n: sql<number>`count(distinct ${rewards.episodeId})::int`, all: sql<number>`count(*)::int` })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .where(eq(episodes.runId, run.id));
    expect(r).toEqual({ n: 8, all: 8 });
  }, 300_000);

  it('cancel keeps finished episodes and their rewards, trains no further', async () => {
    const run = await createRun(db, { name: 'cancel', config: { ...tiny, seed: 22 } }, 'test');
    await untilRun(db, run.id, 'a first scored episode', async (r) => r.status === 'running' && (await count(run.id, 'scored')) >= 1, 120_000);
    await transitionRun(db, run.id, 'cancel', 'test');
    await untilRun(db, run.id, 'the in-flight episode to settle', async () => (await count(run.id, 'running')) === 0, 60_000);
    await sleep(2000);
    const after = await untilRun(db, run.id, 'cancelled', (r) => r.status === 'cancelled', 1000);
    expect(after.currentIteration).toBe(0);
    const scored = await db
      .select({ id: episodes.id })
      .from(episodes)
      .where(and(eq(episodes.runId, run.id), eq(episodes.status, 'scored')));
    expect(scored.length).toBeGreaterThanOrEqual(1);
    const kept = await db.select({ id: rewards.id }).from(rewards).innerJoin(episodes, eq(episodes.id, rewards.episodeId)).where(eq(episodes.runId, run.id));
    expect(kept).toHaveLength(scored.length);
  }, 200_000);

  it('is running from its first job; paused while version 0 is prepared, it keeps v0 and dispatches nothing until resumed', async () => {
    const run = await createRun(db, { name: 'pause-in-prep', config: { ...tiny, iterations: 1, seed: 25 } }, 'test');
    const eventOf = async (type: string) =>
      (
        await db
          .select()
          .from(runEvents)
          .where(and(eq(runEvents.runId, run.id), eq(runEvents.type, type)))
      ).length;
    // running (with its start time) as soon as the advance job starts preparing, before v0 exists
    const prep = await untilRun(db, run.id, 'the start', async (r) => r.status === 'running' || (await eventOf('version_zero')) > 0, 120_000);
    expect(prep.startedAt).not.toBeNull();
    // the warm start and held-out evaluation take seconds; the poll sees the start long before v0
    expect(await eventOf('version_zero')).toBe(0);
    await transitionRun(db, run.id, 'pause', 'test');
    await untilRun(db, run.id, 'version 0 committed while paused', async () => (await eventOf('version_zero')) === 1, 120_000);
    expect(await count(run.id, 'running')).toBe(0);
    expect((await db.select({ id: episodes.id }).from(episodes).where(eq(episodes.runId, run.id))).length).toBe(0);
    await transitionRun(db, run.id, 'resume', 'test');
    const done = await untilRun(db, run.id, 'completion', (r) => r.status === 'completed' || r.status === 'failed', 150_000);
    expect(done.status).toBe('completed');
    expect(await eventOf('version_zero')).toBe(1);
    expect(await eventOf('started')).toBe(1);
    expect(await count(run.id, 'scored')).toBe(4);
  }, 300_000);

  it("a run's own held-out settings override the deployment's: tasks evaluated, pass@k and how often", async () => {
    // the deployment's (TINY_RL_ENV): 2 held-out tasks, pass@k off
    const run = await createRun(
      db,
      { name: 'heldout', config: { ...tiny, iterations: 1, seed: 24, heldout: { tasks: 1, passAtK: 2, passAtKEvery: 1 } } },
      'test',
    );
    const done = await untilRun(db, run.id, 'completion', (r) => r.status === 'completed' || r.status === 'failed', 150_000);
    expect(done.status).toBe('completed');
    const m = await db
      .select({ name: metricSamples.name, step: metricSamples.step, labels: metricSamples.labels })
      .from(metricSamples)
      .where(and(eq(metricSamples.runId, run.id), sql`${metricSamples.name} in ('heldout_pass_at_1', 'heldout_pass_at_k')`))
      .orderBy(asc(metricSamples.step), asc(metricSamples.name));
    // v0's sample says how many tasks it covered; each version after it is evaluated too
    expect(m.filter((x) => x.name === 'heldout_pass_at_1').map((x) => [x.step, x.labels.tasks])).toEqual([
      [0, '1'],
      [1, undefined],
    ]);
    expect(m.filter((x) => x.name === 'heldout_pass_at_k').map((x) => [x.step, x.labels.k])).toEqual([
      [0, '2'],
      [1, '2'],
    ]);
  }, 200_000);

  it('a fixed seed replays to the same tokens and rewards on the CPU', async () => {
    const config = { ...tiny, seed: 23, concurrency: 2 };
    const a = await createRun(db, { name: 'replay-a', config }, 'test');
    const b = await createRun(db, { name: 'replay-b', config }, 'test');
    for (const id of [a.id, b.id]) {
      const r = await untilRun(db, id, 'completion', (x) => x.status === 'completed' || x.status === 'failed', 200_000);
      expect(r.status).toBe('completed');
    }
    const trace = async (runId: string) =>
      db
        .select({
          it: episodes.iteration,
          g: episodes.groupIndex,
          s: episodes.sampleIndex,
          task: episodes.taskId,
          tokens: turns.tokenIds,
          action: turns.action,
          reward: rewards.value,
        })
        .from(episodes)
        .innerJoin(turns, eq(turns.episodeId, episodes.id))
        .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
        .where(eq(episodes.runId, runId))
        .orderBy(asc(episodes.iteration), asc(episodes.groupIndex), asc(episodes.sampleIndex), asc(turns.index));
    const [ta, tb] = [await trace(a.id), await trace(b.id)];
    expect(ta).toHaveLength(8);
    expect(tb).toEqual(ta);
    // iteration 1 was sampled by the policy trained in iteration 0: replay covers the update too
    expect(ta.filter((t) => t.it === 1)).toHaveLength(4);
  }, 400_000);
});
