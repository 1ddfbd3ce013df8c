import { runsAgentEpisodes } from '@/core/task-kinds';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { episodes, repoTasks, rewards, runs, tasks, turns } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { runBlindToReviewers } from '@/server/reviews/blind';

export const episodeStatuses = ['pending', 'running', 'scored', 'failed', 'sandbox_error', 'env_mismatch', 'preempted', 'cancelled', 'masked'] as const;

export const listEpisodesSchema = z.object({
  runId: z.uuid('runId must be a run id (uuid)'),
  status: z.enum(episodeStatuses).optional(),
  iteration: z.number().int().min(0).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(200).default(50),
});

/**
 * Blind review (server/reviews/blind.ts): the episode's run has a blind review slot still
 * open. Reviewers see no reward of ANY episode of that run (not only the sampled one): the
 * others' rewards and the run's mean would give the withheld one by subtraction; and
 * skipping or releasing an item, looking rewards up and claiming it again does not unblind it.
 */
const openBlindReview = runBlindToReviewers(sql`${episodes.runId}`);

export type EpisodeReadOptions = { withholdBlindRewards?: boolean };

export async function listEpisodes(db: Db, input: z.input<typeof listEpisodesSchema>, opts: EpisodeReadOptions = {}) {
  const q = listEpisodesSchema.parse(input);
  const conds = [eq(episodes.runId, q.runId)];
  if (q.status) conds.push(eq(episodes.status, q.status));
  if (q.iteration !== undefined) conds.push(eq(episodes.iteration, q.iteration));
  const where = and(...conds);
  const items = await db
    .select({
      id: episodes.id,
      iteration: episodes.iteration,
      groupIndex: episodes.groupIndex,
      sampleIndex: episodes.sampleIndex,
      status: episodes.status,
      turnsCount: episodes.turnsCount,
      runtime: episodes.runtime,
      envHash: episodes.envHash,
      endReason: episodes.endReason,
      startedAt: episodes.startedAt,
      finishedAt: episodes.finishedAt,
      taskExternalId: tasks.externalId,
      language: tasks.language,
      reward: opts.withholdBlindRewards ? sql<number | null>`case when ${openBlindReview} then null else ${rewards.value} end` : rewards.value,
      rewardWithheld: opts.withholdBlindRewards ? sql<boolean>`${openBlindReview}` : sql<boolean>`false`,
    })
    .from(episodes)
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(where)
    .orderBy(desc(episodes.iteration), asc(episodes.groupIndex), asc(episodes.sampleIndex))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [{ total } = { total: 0 }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(episodes)
    .where(where);
  return { items, total, page: q.page, pageSize: q.pageSize };
}

/**
 * What blind review withholds from a reviewer's episode read besides the reward: everything
 * the reward is computed from. A repository task's grading run (its status, reward, components
 * and per-test results: the FAIL_TO_PASS pass fraction is the reward), and an input/output
 * turn's check results (per-check `tests` and the feedback line "2/3 passed; …", the same rule
 * as the review item in server/reviews/queue.ts). An agent turn keeps its tool outputs: they
 * are what the agent saw, and the hidden tests only run at grading.
 */
function withholdGrading<T extends { toolCalls: unknown; observation: string | null; tests: unknown }>(turnRows: T[]): T[] {
  return turnRows.map((t) => (t.toolCalls ? { ...t, tests: null } : { ...t, tests: null, observation: null }));
}

/** A trajectory with everything needed to inspect it: task, every turn, reward, a repository task's grading run. */
export async function getEpisode(db: Db, id: string, opts: EpisodeReadOptions = {}) {
  const [row] = await db
    .select({
      episode: episodes,
      task: tasks,
      runName: runs.name,
      rewardWithheld: opts.withholdBlindRewards ? sql<boolean>`${openBlindReview}` : sql<boolean>`false`,
    })
    .from(episodes)
    .innerJoin(runs, eq(runs.id, episodes.runId))
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .where(eq(episodes.id, id));
  if (!row) throw new DomainError('NOT_FOUND', `no episode ${id}`);
  const [turnRows, [reward], [repo]] = await Promise.all([
    db.select().from(turns).where(eq(turns.episodeId, id)).orderBy(asc(turns.index)),
    db.select().from(rewards).where(eq(rewards.episodeId, id)),
    // the test lists only (to label each graded test); the hidden test files stay server-side
    row.task && runsAgentEpisodes(row.task.kind)
      ? db.select({ failToPass: repoTasks.failToPass, passToPass: repoTasks.passToPass }).from(repoTasks).where(eq(repoTasks.taskId, row.task.id))
      : Promise.resolve([]),
  ]);
  const withheld = row.rewardWithheld;
  return {
    episode: withheld ? { ...row.episode, grading: null } : row.episode,
    runName: row.runName,
    task: row.task,
    /** a repository task's FAIL_TO_PASS / PASS_TO_PASS test ids; null for input/output tasks */
    repoTests: repo ?? null,
    turns: withheld ? withholdGrading(turnRows) : turnRows,
    reward: withheld ? null : (reward ?? null),
    rewardWithheld: withheld,
  };
}
