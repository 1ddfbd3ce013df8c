import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, rewards, runEvents, tasks, turns, runs } from '@/db/schema';
import { createRun, transitionRun } from '@/server/runs/service';
import { runProgress } from '@/server/runs/progress';
import { runComputeUsage } from '@/server/compute/service';
import { PHASE_EVENT_TYPE } from '@/core/run-phases';
import type { TaskTests } from '@/core/tasks';
import { jobPhases } from './phase-events';
import { inProcessRl, phaseRows as phaseRowsOf, TINY_RL_ENV, untilRun } from './rl.testkit';

// A tiny run through the real loop (Postgres, bwrap sandboxes, ONNX on CPU): what it says it
// is doing (phase events, server/runs/progress.ts), and what each check of each turn got.
const logs: string[] = [];
const rl = await inProcessRl('phases', { ...TINY_RL_ENV }, { log: (m) => logs.push(m) });
const { db } = rl;
beforeAll(() => rl.start());
afterAll(() => rl.stop());

const phaseRows = (runId: string) => phaseRowsOf(db, runId);

describe('a run says what it is doing, phase by phase', () => {
  it('writes start-up, sampling and learning phases once each, and stores every check of every turn', async () => {
    const run = await createRun(
      db,
      { name: 'phases', config: { seed: 3, iterations: 2, tasksPerIteration: 2, groupSize: 2, maxTurns: 1, concurrency: 2 } },
      'test',
    );
    // the start-up phases are written while they run, before the run starts (own transactions)
    await untilRun(db, run.id, 'the SFT warm start to be announced', async () => (await phaseRows(run.id)).some((p) => p.phase === 'sft'), 120_000);
    const early = await untilRun(
      db,
      run.id,
      'the run to finish',
      (r) => r.status === 'completed' || r.status === 'failed',
      280_000,
      () => logs.slice(-5).join(' | '),
    );
    expect(early.status).toBe('completed');

    const phases = await phaseRows(run.id);
    const line = (p: (typeof phases)[number]) => `${p.phase}:${p.state}${p.iteration != null ? `@${p.iteration}` : ''}${p.subject ? ` ${p.subject}` : ''}`;
    expect(phases.map(line)).toEqual([
      'heldout_eval:started the initialisation',
      'heldout_eval:finished the initialisation',
      'sft:started',
      'sft:finished',
      'heldout_eval:started policy v0',
      'heldout_eval:finished policy v0',
      'sampling:started@0',
      'learning:started@0',
      'heldout_eval:started@0 policy v1',
      'heldout_eval:finished@0 policy v1',
      'sampling:started@1',
      'learning:started@1',
      'heldout_eval:started@1 policy v2',
      'heldout_eval:finished@1 policy v2',
    ]);
    expect(phases.find((p) => p.phase === 'sft' && p.state === 'finished')).toMatchObject({ steps: 20, attempt: 1, actor: 'system:rl.advance' });
    expect(phases.find((p) => p.phase === 'sft')!.message).toBe('SFT warm start (20 steps) started');
    expect(phases.find((p) => p.subject === 'policy v0' && p.state === 'finished')!.message).toMatch(
      /^held-out evaluation of policy v0 \(2 tasks\) finished: pass@1 \d\.\d{3}, \d/,
    );
    expect(phases.find((p) => p.phase === 'sampling' && p.iteration === 1)!.message).toBe('iteration 2 of 2: sampling 4 episodes started');
    expect(phases.find((p) => p.phase === 'learning' && p.iteration === 0)).toMatchObject({
      message: 'iteration 1 of 2: learning (policy update) started',
      actor: 'system:rl.learn',
    });
    // the run is running from its first job: "started" commits before the start-up phases; version 0
    // is committed after them ("version_zero"), with the first sampling phase
    const all = await db.select().from(runEvents).where(eq(runEvents.runId, run.id)).orderBy(asc(runEvents.id));
    const started = all.findIndex((e) => e.type === 'started');
    const ready = all.findIndex((e) => e.type === 'version_zero');
    const phaseAt = (phase: string) => all.findIndex((e) => e.type === PHASE_EVENT_TYPE && (e.data as { phase?: string }).phase === phase);
    expect(all[started]).toMatchObject({
      fromStatus: 'queued',
      toStatus: 'running',
      message: 'started: preparing policy version 0 (warm start and held-out evaluation)',
    });
    expect(started).toBeLessThan(phaseAt('sft'));
    expect(phaseAt('sft')).toBeLessThan(ready);
    expect(all[ready]!.message).toMatch(/^policy version 0 ready: held-out pass@1 \d\.\d{3}; training starts$/);
    expect(phaseAt('sampling')).toBeGreaterThan(ready);
    // one advance job started and prepared it: the start woke no second one
    expect(all.filter((e) => e.type === 'started')).toHaveLength(1);

    // the held-out evaluation counted its tasks as it went: the last one evaluated all of them
    const lastHeldout = all.filter((e) => e.type === PHASE_EVENT_TYPE && (e.data as { phase?: string; state?: string }).phase === 'heldout_eval').at(-2)!;
    expect((lastHeldout.data as { state: string }).state).toBe('started');
    const [counted] = await db.select({ p: runs.phaseProgress }).from(runs).where(eq(runs.id, run.id));
    expect(counted!.p).toEqual({ key: (lastHeldout.data as { key: string }).key, done: 2, total: 2 });

    // the progress read the run page makes
    const progress = await runProgress(db, run.id);
    expect(progress).toMatchObject({ status: 'completed', iterations: 2, currentIteration: 2, episodesDone: 8, episodesTotal: 8, episodesPerIteration: 4 });
    expect(progress.phases).toHaveLength(phases.length);

    // where its compute went, committed with its jobs (run_compute): every phase it met counted CPU
    const usage = await runComputeUsage(db, run.id);
    const of = (phase: string) => usage.phases.find((p) => p.phase === phase)!;
    for (const phase of ['sampling', 'grading', 'learning', 'heldout_eval']) expect(of(phase).cpuSeconds, phase).toBeGreaterThan(0);
    expect(of('sampling').jobs).toBeGreaterThanOrEqual(8); // its episodes (a retried one counts its committing attempt)
    expect(of('learning').jobs).toBeGreaterThanOrEqual(2); // the learner steps and the SFT warm start
    expect(usage.gpuSeconds).toBe(0);

    // each check's result, per turn, agreeing with the reward's pass rate
    const eps = await db
      .select({ id: episodes.id, tests: tasks.tests, passRate: rewards.components })
      .from(episodes)
      .innerJoin(tasks, eq(tasks.id, episodes.taskId))
      .innerJoin(rewards, eq(rewards.episodeId, episodes.id))
      .where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(8);
    const stored = await db
      .select({ episodeId: turns.episodeId, tests: turns.tests })
      .from(turns)
      .where(
        inArray(
          turns.episodeId,
          eps.map((e) => e.id),
        ),
      );
    expect(stored).toHaveLength(8);
    for (const e of eps) {
      const t = stored.find((s) => s.episodeId === e.id)!.tests;
      const taskTests = e.tests as TaskTests;
      expect(t, 'turns.tests of a scored turn').not.toBeNull();
      expect(t).toHaveLength(taskTests.kind === 'io' ? taskTests.cases.length : 1);
      t!.forEach((r, i) => {
        expect(r).toMatchObject({ index: i, passed: expect.any(Boolean), ms: expect.any(Number), detail: expect.any(String) });
        expect(r.detail.length).toBeGreaterThan(0);
      });
      const rate = t!.filter((r) => r.passed).length / t!.length;
      expect(rate).toBeCloseTo((e.passRate as { passRate: number }).passRate, 6);
    }
  }, 300_000);

  it('writes a retried job attempt its own events, and one attempt never twice', async () => {
    const run = await createRun(db, { name: 'retried', config: { iterations: 2 } }, 'test');
    // paused at once: the loop's own advance job leaves it be (and its events are told apart by key anyway)
    await transitionRun(db, run.id, 'pause', 'test');
    const ours = async () => (await phaseRows(run.id)).filter((r) => r.key?.startsWith('job:41:'));
    const fullRun = { id: run.id, suiteId: run.suiteId, config: run.config };
    const first = jobPhases(db, fullRun, { id: 41, attempts: 1, queue: 'rl.learn' }, { heldoutLimit: 2 });
    await first.started('learning', 0);
    await first.started('learning', 0); // the same attempt again: no second event
    const second = jobPhases(db, fullRun, { id: 41, attempts: 2, queue: 'rl.learn' }, { heldoutLimit: 2 });
    await second.started('learning', 0);
    const rows = await ours();
    expect(rows.map((r) => [r.attempt, r.message])).toEqual([
      [1, 'iteration 1 of 2: learning (policy update) started'],
      [2, 'iteration 1 of 2: learning (policy update) started (attempt 2: the job is retried after an earlier attempt stopped)'],
    ]);
    // a phase whose work fails keeps its start (the retry's events follow it) and no finish
    await expect(second.sft(5, () => Promise.reject(new Error('worker lost')))).rejects.toThrow('worker lost');
    expect((await ours()).filter((r) => r.phase === 'sft').map((r) => r.state)).toEqual(['started']);
  });
});
