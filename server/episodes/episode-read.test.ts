import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeGrading, StoredToolCall } from '@/core/repo-tasks';
import type { Database } from '@/db/client';
import { episodes, repoTasks, repoWorkspaces, reviews, tasks, turns } from '@/db/schema';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { seedEpisode, seedRun } from '@/test/seed';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const blindReview = { review: { rate: 1, doubleReviewShare: 0, blind: true, disputed: 'exclude' as const, thresholds: [0.5] } };

const grading: EpisodeGrading = {
  status: 'graded',
  reward: 0.4142,
  components: { f2p: 0.5, p2p: 1, p2p_all: 1, patch_applied: 1, tampered: 0, rejected_paths: 1 },
  tests: [
    { name: 'tests/test_x.py::test_new', passed: true, outcome: 'passed' },
    { name: 'tests/test_x.py::test_secret_fail', passed: false, outcome: 'failed', detail: 'assert 1 == 2' },
  ],
  patchApplied: true,
  rejectedPaths: ['tests/conftest.py'],
  runtime: 'bwrap',
  envHash: 'sha256:grading-env',
  workspaceSha256: 'sha256:ws',
  durationMs: 812,
  patch: 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n',
  binarySkipped: [],
  end: 'submitted',
};
const call: StoredToolCall = { name: 'bash', arguments: { command: 'pytest -q' }, output: '1 passed\n[exit code 0]', durationMs: 40 };

/** A blind-reviewed run with an agent episode (repository task, grading stored) and an input/output episode with per-check results. */
async function seed() {
  const { run, tasks: io } = await seedRun(database.db, { name: `read-${Math.random().toString(36).slice(2, 7)}`, config: blindReview });
  const sha = `sha256:${Math.random().toString(36).slice(2)}`;
  await database.db.insert(repoWorkspaces).values({ sha256: sha, files: { 'x.py': 'a\n' }, fileCount: 1, totalBytes: 2 });
  const [repoTask] = await database.db
    .insert(tasks)
    .values({ suiteId: io[0]!.suiteId, externalId: 'repo-x', language: 'python', prompt: 'fix x', entryPoint: '', tests: { kind: 'repo' }, kind: 'repo' })
    .returning();
  await database.db.insert(repoTasks).values({
    taskId: repoTask!.id,
    workspaceSha256: sha,
    hiddenTests: { 'tests/test_x.py': 'def test_new(): pass\n' },
    failToPass: ['tests/test_x.py::test_new', 'tests/test_x.py::test_secret_fail'],
    passToPass: ['tests/test_x.py::test_old'],
  });
  const agent = await seedEpisode(database.db, run.id, repoTask!.id, 0.4142);
  await database.db.update(episodes).set({ grading }).where(eq(episodes.id, agent.id));
  await database.db
    .update(turns)
    .set({
      action: '<tool_call>{"name":"bash","arguments":{"command":"pytest -q"}}</tool_call>',
      observation: '1 passed\n[exit code 0]',
      toolCalls: [call],
      workspaceDiff: grading.patch,
    })
    .where(eq(turns.episodeId, agent.id));
  const ioEp = await seedEpisode(database.db, run.id, io[0]!.id, 0.5);
  await database.db
    .update(turns)
    .set({ observation: '1/2 passed; returned 3', tests: [{ index: 0, passed: true, ms: 1, detail: 'returned 2' }] })
    .where(eq(turns.episodeId, ioEp.id));
  await database.db.insert(reviews).values({ episodeId: agent.id, runId: run.id, slot: 0, sampleReason: 'uniform' });
  return { run, agent, ioEp };
}

describe('episodes.get: agent episodes and blind review', () => {
  it('returns the grading run, the task test lists and each turn’s tool calls, diff and per-check results', async () => {
    const s = await seed();
    const op = await callerAs(database.db, 'operator');
    const got = await op.episodes.get({ id: s.agent.id });
    expect(got.episode.grading).toMatchObject({ reward: 0.4142, rejectedPaths: ['tests/conftest.py'] });
    expect(got.repoTests).toEqual({
      failToPass: ['tests/test_x.py::test_new', 'tests/test_x.py::test_secret_fail'],
      passToPass: ['tests/test_x.py::test_old'],
    });
    expect(JSON.stringify(got)).not.toContain('def test_new'); // the hidden tests themselves stay server-side
    expect(got.turns[0]).toMatchObject({ toolCalls: [call], workspaceDiff: grading.patch });
    const io = await op.episodes.get({ id: s.ioEp.id });
    expect(io.repoTests).toBeNull();
    expect(io.turns[0]!.tests).toEqual([{ index: 0, passed: true, ms: 1, detail: 'returned 2' }]);
  });

  it('a reviewer reading a run under open blind review gets no grading run, no check results, no feedback line; tool outputs stay', async () => {
    const s = await seed();
    const rev = await callerAs(database.db, 'reviewer');
    const { id } = await rev.reviews.claim({ runId: s.run.id });
    await rev.reviews.release({ id: id! });
    const agent = await rev.episodes.get({ id: s.agent.id });
    expect(agent).toMatchObject({ reward: null, rewardWithheld: true });
    expect(agent.episode.grading).toBeNull();
    expect(agent.turns[0]).toMatchObject({ toolCalls: [call], observation: '1 passed\n[exit code 0]', tests: null });
    const io = await rev.episodes.get({ id: s.ioEp.id });
    expect(io.turns[0]).toMatchObject({ tests: null, observation: null });
    for (const secret of ['0.4142', 'test_secret_fail', 'assert 1 == 2', 'returned 2', '1/2 passed'])
      expect(JSON.stringify([agent.episode, agent.turns, agent.reward, io.turns]).includes(secret), secret).toBe(false);
    // once the run's blind review is done, the reviewer sees it like everyone else
    await rev.reviews.claim({ runId: s.run.id });
    await rev.reviews.submit({ id: id!, verdict: 'correct' });
    expect((await rev.episodes.get({ id: s.agent.id })).episode.grading).toMatchObject({ reward: 0.4142 });
    expect((await rev.episodes.get({ id: s.ioEp.id })).turns[0]!.tests).toHaveLength(1);
  });
});
