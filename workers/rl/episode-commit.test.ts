import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { episodes, policyVersions, rewards, runs, turns } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { seedRun } from '@/test/seed';
import { commitEpisode, type EpisodeCommit } from './episode-commit';
import type { PlayedEpisode } from './task-kinds/task-kind';

// The one place an episode's result is written, whatever its kind (real Postgres). The run is
// paused so its next step (topUp) leaves the rows as the commit wrote them.
let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database?.close());

async function setup() {
  const { db } = database;
  const { run, tasks } = await seedRun(db, { config: { groupSize: 2 } });
  await db.update(runs).set({ status: 'paused' }).where(eq(runs.id, run.id));
  const [v] = await db.insert(policyVersions).values({ runId: run.id, version: 0, sha256: 'sha256:v0' }).returning();
  const [e] = await db
    .insert(episodes)
    .values({ runId: run.id, taskId: tasks[0]!.id, iteration: 0, groupIndex: 0, sampleIndex: 0, status: 'running' })
    .returning();
  const commit = (attempt: number): EpisodeCommit => ({
    runId: run.id,
    episode: { id: e!.id, attempt },
    policyVersionId: v!.id,
    host: 'h',
    workerId: 'w',
    startedAt: new Date(),
    infraRetries: 1,
  });
  return { run, episode: e!, commit };
}

const turn = { index: 0, action: 'return x + 1', tokenIds: [1, 2, 3], lossMask: [0, 1, 1], logprobs: [0, -0.5, -0.25], observation: 'ok' };
const infra = (status: 'sandbox_error' | 'env_mismatch'): PlayedEpisode => ({
  turns: [turn],
  infra: { status, reason: `${status}: the sandbox died` },
  reward: null,
  runtime: 'bwrap',
  envHash: null,
  endReason: 'infra',
  summary: {},
});
const scored: PlayedEpisode = {
  turns: [turn, { ...turn, index: 1 }],
  infra: null,
  reward: { value: 0.75, components: { passRate: 1 }, envHash: 'sha256:env', harnessVersion: 'h1' },
  runtime: 'bwrap',
  envHash: 'sha256:env',
  endReason: 'solved',
  summary: { policyMs: 5 },
};

const state = async (runId: string, episodeId: string) => {
  const { db } = database;
  const [e] = await db.select().from(episodes).where(eq(episodes.id, episodeId));
  const [r] = await db.select().from(runs).where(eq(runs.id, runId));
  return {
    e: e!,
    done: r!.episodesDone,
    rewards: await db.select().from(rewards).where(eq(rewards.episodeId, episodeId)),
    turns: await db.select().from(turns).where(eq(turns.episodeId, episodeId)),
  };
};

describe('the episode commit', () => {
  it('retries an infrastructure failure while retries are left: pending again, next attempt, not counted', async () => {
    const { run, episode, commit } = await setup();
    const out = await database.db.transaction((tx) => commitEpisode(tx, commit(1), infra('sandbox_error')));
    expect(out).toMatchObject({ status: 'retry', reward: null, turns: 1 });
    const s = await state(run.id, episode.id);
    expect(s.e).toMatchObject({ status: 'pending', attempt: 2, endReason: 'infra', error: 'attempt 1: sandbox_error: the sandbox died' });
    expect(s.done).toBe(0);
    expect(s.rewards).toEqual([]);
    expect(s.turns).toHaveLength(1);
  });

  it('masks it when retries are spent: its status kept, counted as finished, never a reward of 0', async () => {
    const { run, episode, commit } = await setup();
    await database.db.update(episodes).set({ attempt: 2 }).where(eq(episodes.id, episode.id));
    const out = await database.db.transaction((tx) => commitEpisode(tx, commit(2), infra('env_mismatch')));
    expect(out).toMatchObject({ status: 'env_mismatch', reward: null });
    const s = await state(run.id, episode.id);
    expect(s.e).toMatchObject({ status: 'env_mismatch', attempt: 2, endReason: 'infra', error: 'env_mismatch: the sandbox died' });
    expect(s.done).toBe(1);
    expect(s.rewards).toEqual([]);
  });

  it('scores it: the reward row with its provenance, its turns replaced, counted once', async () => {
    const { run, episode, commit } = await setup();
    // an earlier attempt's turn is replaced, not kept beside the new ones
    await database.db.transaction((tx) => commitEpisode(tx, commit(1), infra('sandbox_error')));
    await database.db.update(episodes).set({ status: 'running' }).where(eq(episodes.id, episode.id));
    const out = await database.db.transaction((tx) => commitEpisode(tx, commit(2), scored));
    expect(out).toMatchObject({ status: 'scored', reward: 0.75, turns: 2, policyMs: 5 });
    const s = await state(run.id, episode.id);
    expect(s.e).toMatchObject({ status: 'scored', endReason: 'solved', envHash: 'sha256:env', runtime: 'bwrap', turnsCount: 2, host: 'h', workerId: 'w' });
    expect(s.rewards).toMatchObject([{ value: 0.75, envHash: 'sha256:env', harnessVersion: 'h1', components: { passRate: 1 } }]);
    expect(s.turns.map((t) => t.index).sort()).toEqual([0, 1]);
    expect(s.done).toBe(1);
    // committing the same episode again (a replayed job) changes nothing
    expect(await database.db.transaction((tx) => commitEpisode(tx, commit(2), scored))).toEqual({ skipped: 'scored' });
    expect((await state(run.id, episode.id)).done).toBe(1);
  });
});
