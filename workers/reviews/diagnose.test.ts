import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { episodes, runs, tasks } from '@/db/schema';
import { defaultRunConfig } from '@/core/run-config';
import { importTasks } from '@/server/tasks/service';
import { loadRepoSuite } from '@/lib/agent/suite/repo-suite';
import { sampleForReview } from '@/server/reviews/sampler';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { seedEpisode, seedRun } from '@/test/seed';
import { startTs, waitFor, type Proc } from '@/workers/jobs/fixtures/processes';
import { ensureBuiltInEnvironment, ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { and, eq } from 'drizzle-orm';

let database: Database;
let dataDir: string;
let worker: Proc | undefined;
beforeAll(async () => {
  database = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-diag-'));
  fs.chmodSync(dataDir, 0o755);
});
afterAll(async () => {
  if (worker) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const review = { rate: 1, doubleReviewShare: 0, blind: true, disputed: 'exclude' as const, thresholds: [0.5] };

/** An episode of a one-task run with these tests and turn actions, sampled for review and disputed as a false negative: its review id. */
async function disputed(tests: Partial<typeof tasks.$inferInsert>, actions: string[], envHash: string) {
  const {
    run,
    tasks: [task],
  } = await seedRun(database.db, { tasks: 1, config: { review } });
  await database.db.update(tasks).set(tests).where(eq(tasks.id, task!.id));
  const ep = await seedEpisode(database.db, run.id, task!.id, 0, { envHash, actions });
  await sampleForReview(database.db, ep.id);
  const reviewer = await callerAs(database.db, 'reviewer');
  const { id } = await reviewer.reviews.claim({ runId: run.id });
  if (!id) throw new Error('nothing to review: the episode was not sampled');
  return { reviewer, id };
}

/** The diagnosis once the job worker has finished it. */
const finishedDiagnosis = (reviewer: Awaited<ReturnType<typeof callerAs>>, id: string) =>
  waitFor(
    'the diagnosis',
    async () => {
      const r = await reviewer.reviews.diagnosis({ id });
      return r && r.status !== 'pending' ? r : null;
    },
    90_000,
    250,
  );

describe('diagnosis of a disputed reward', () => {
  it('a false-negative verdict re-runs the final code on the baseline and on the scored environment, in a real job worker', async () => {
    const env = ensureDefaultEnvironment(path.join(dataDir, 'envs'));
    // Scored 0 although its final code is right: the kind of bug a reviewer catches. Turns
    // store what the policy wrote, the body under the prompt's header (`def f0(x):`), as real
    // episodes do: the re-run must score prompt + body, not the bare body.
    const io = {
      tests: {
        kind: 'io',
        cases: [
          { input: [1], expected: 2 },
          { input: [5], expected: 6 },
        ],
      },
    };
    const { reviewer, id } = await disputed(io, ['    return x', '    return x + 1'], env.hash);
    expect(await reviewer.reviews.diagnosis({ id })).toBeNull();
    await reviewer.reviews.submit({ id, verdict: 'false_negative', correctedReward: 1 });
    expect(await reviewer.reviews.diagnosis({ id })).toMatchObject({ status: 'pending' });

    worker = startTs('workers/job-worker/main.ts', [], { DATABASE_URL: database.url, CRUCIBLE_DATA_DIR: dataDir });
    const d = await finishedDiagnosis(reviewer, id).catch((e) => {
      throw new Error(`${(e as Error).message}\nworker output:\n${worker!.output()}`);
    });
    expect(d.status, JSON.stringify(d)).toBe('done');
    const baseline = d.baseline as { status: string; reward: number; envHash: string; components: { passRate: number } };
    const scored = d.scored as { status: string; envHash: string; components: { passRate: number } };
    expect(baseline).toMatchObject({ status: 'scored', envHash: env.hash, components: { passRate: 1 } });
    expect(baseline.reward).toBeGreaterThan(0.9);
    expect(scored).toMatchObject({ status: 'scored', envHash: env.hash, components: { passRate: 1 } });
  }, 120_000);

  it('a text task is re-run through the text checker on its text (the worker from above)', async () => {
    const env = ensureDefaultEnvironment(path.join(dataDir, 'envs'));
    const text = { kind: 'text' as const, tests: { kind: 'text', checks: [{ type: 'mentions', words: ['Lily'] }, { type: 'ends_sentence' }] } };
    const { reviewer, id } = await disputed(text, ['Lily found her ball and smiled.'], env.hash);
    await reviewer.reviews.submit({ id, verdict: 'false_negative', correctedReward: 1 });
    const d = await finishedDiagnosis(reviewer, id);
    expect(d.status, JSON.stringify(d)).toBe('done');
    expect(d.baseline).toMatchObject({ status: 'scored', reward: 1, components: { passRate: 1, testsTotal: 2 } });
  }, 120_000);

  it('a repository episode: its graded patch is re-graded in a clean sandbox, every test by name (the worker from above)', async () => {
    const env = ensureBuiltInEnvironment('repo', path.join(dataDir, 'envs'));
    const line = loadRepoSuite().find((t) => t.id === 'js-semver-sort-numeric')!;
    await importTasks(database.db, { text: `${JSON.stringify(line)}\n`, format: 'crucible-repo', suite: 'repo-diag', baseDir: '/' }, 'test');
    const [task] = await database.db.select().from(tasks).where(eq(tasks.externalId, line.id));
    const [run] = await database.db
      .insert(runs)
      .values({ name: 'repo-diag', config: { ...defaultRunConfig, review }, suiteId: task!.suiteId, status: 'running' })
      .returning();
    // scored 0 although its patch is the gold one: what a reviewer disputes
    const ep = await seedEpisode(database.db, run!.id, task!.id, 0, {
      envHash: env.hash,
      actions: ['<tool_call>{"name": "submit", "arguments": {}}</tool_call>'],
    });
    const grading = {
      status: 'graded' as const,
      reward: 0,
      components: { f2p: 0, p2p: 1 },
      tests: [],
      patchApplied: true,
      rejectedPaths: [],
      runtime: 'bwrap',
      envHash: env.hash,
      workspaceSha256: 'sha256:x',
      durationMs: 1,
      patch: line.gold_patch!,
      binarySkipped: [],
      end: 'submitted' as const,
    };
    await database.db.update(episodes).set({ grading }).where(eq(episodes.id, ep.id));
    await sampleForReview(database.db, ep.id);
    const reviewer = await callerAs(database.db, 'reviewer');
    const { id } = await reviewer.reviews.claim({ runId: run!.id });
    await reviewer.reviews.submit({ id: id!, verdict: 'false_negative', correctedReward: 1 });
    const d = await finishedDiagnosis(reviewer, id!);
    expect(d.status, JSON.stringify(d)).toBe('done');
    const baseline = d.baseline as { status: string; reward: number; envHash: string; tests: { passed: boolean; detail: string }[] };
    expect(baseline).toMatchObject({ status: 'scored', reward: 1, envHash: env.hash, runtime: 'bwrap', components: { f2p: 1, p2p: 1 } });
    // every FAIL_TO_PASS and PASS_TO_PASS test, by name
    const names = [...line.FAIL_TO_PASS, ...(line.PASS_TO_PASS ?? [])];
    expect(baseline.tests.map((t) => t.detail.replace(/ \(passed\).*$/, '')).sort()).toEqual(names.sort());
    expect(baseline.tests.every((t) => t.passed)).toBe(true);
    expect(d.scored).toMatchObject({ status: 'scored', reward: 1, note: expect.stringMatching(/same hash/) });

    // an episode that never reached grading has no patch: the diagnosis says so instead of re-running something else
    const ungraded = await seedEpisode(database.db, run!.id, task!.id, 0, { envHash: env.hash });
    await sampleForReview(database.db, ungraded.id);
    const next = await reviewer.reviews.claim({ runId: run!.id });
    await reviewer.reviews.submit({ id: next.id!, verdict: 'false_negative', correctedReward: 1 });
    const failed = await finishedDiagnosis(reviewer, next.id!);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/no graded patch to re-grade/) });
    expect(
      await database.db
        .select()
        .from(episodes)
        .where(and(eq(episodes.runId, run!.id))),
    ).toHaveLength(2);
  }, 180_000);
});
