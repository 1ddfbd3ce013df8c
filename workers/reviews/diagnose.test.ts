import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { tasks } from '@/db/schema';
import { sampleForReview } from '@/server/reviews/sampler';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { seedEpisode, seedRun } from '@/test/seed';
import { startTs, waitFor, type Proc } from '@/workers/jobs/fixtures/processes';
import { ensureDefaultEnvironment } from '@/workers/sandbox/env/env-store';
import { eq } from 'drizzle-orm';

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

    worker = startTs('workers/jobs/main.ts', [], { DATABASE_URL: database.url, CRUCIBLE_DATA_DIR: dataDir });
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
});
