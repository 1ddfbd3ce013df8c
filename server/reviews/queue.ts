import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments, episodes, policyVersions, reviewEvents, reviews, rewards, runs, tasks, turns, users } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { reviewConfig } from '@/server/runs/run-config';

/** How long a claim is held before it returns to the queue (an abandoned claim). */
export const CLAIM_MS = 15 * 60_000;

export type QueueFilter = { runId?: string };

/**
 * Claim the next review for `reviewerId`: the oldest open slot nobody holds (or whose
 * claim expired), never the second slot of an episode this reviewer already has.
 * SKIP LOCKED: two reviewers claiming at once get different items.
 */
export async function claimNext(db: Db, reviewerId: string, filter: QueueFilter = {}) {
  return db.transaction(async (tx) => {
    // Already holding one? Give it back rather than piling up claims.
    const [held] = await tx.select({ id: reviews.id }).from(reviews)
      .where(and(eq(reviews.reviewerId, reviewerId), isNull(reviews.verdict), sql`${reviews.claimExpiresAt} > now()`))
      .orderBy(asc(reviews.claimedAt)).limit(1);
    if (held) return held.id;
    const rows = await tx.execute<{ id: string }>(sql`
      select r.id from reviews r
      where r.verdict is null
        and (r.claim_expires_at is null or r.claim_expires_at < now())
        ${filter.runId ? sql`and r.run_id = ${filter.runId}` : sql``}
        and not exists (select 1 from reviews o where o.episode_id = r.episode_id and o.id <> r.id and o.reviewer_id = ${reviewerId})
      order by r.created_at, r.slot
      limit 1
      for update skip locked`);
    const id = rows[0]?.id;
    if (!id) return null;
    await tx.update(reviews).set({ reviewerId, claimedAt: new Date(), claimExpiresAt: new Date(Date.now() + CLAIM_MS) }).where(eq(reviews.id, id));
    return id;
  });
}

/** Skip: hand a claimed item back to the queue. */
export async function releaseClaim(db: Db, reviewId: string, reviewerId: string) {
  const res = await db.update(reviews).set({ reviewerId: null, claimedAt: null, claimExpiresAt: null })
    .where(and(eq(reviews.id, reviewId), eq(reviews.reviewerId, reviewerId), isNull(reviews.verdict))).returning({ id: reviews.id });
  if (!res.length) throw new DomainError('CONFLICT', 'you do not hold a claim on this item (it may have expired)');
  return { released: true };
}

export async function listQueue(db: Db, opts: { runId?: string; state?: 'open' | 'done' | 'all'; page: number; pageSize: number }) {
  const conds = [];
  if (opts.runId) conds.push(eq(reviews.runId, opts.runId));
  if (opts.state === 'open') conds.push(isNull(reviews.verdict));
  if (opts.state === 'done') conds.push(sql`${reviews.verdict} is not null`);
  const where = conds.length ? and(...conds) : undefined;
  const items = await db
    .select({
      id: reviews.id, episodeId: reviews.episodeId, runId: reviews.runId, slot: reviews.slot, sampleReason: reviews.sampleReason,
      verdict: reviews.verdict, reviewer: users.username, claimExpiresAt: reviews.claimExpiresAt, submittedAt: reviews.submittedAt,
      createdAt: reviews.createdAt, taskExternalId: tasks.externalId,
    })
    .from(reviews)
    .innerJoin(episodes, eq(episodes.id, reviews.episodeId))
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(users, eq(users.id, reviews.reviewerId))
    .where(where)
    .orderBy(asc(reviews.createdAt), asc(reviews.slot))
    .limit(opts.pageSize).offset((opts.page - 1) * opts.pageSize);
  const [{ total }] = await db.select({ total: sql<number>`count(*)::int` }).from(reviews).where(where);
  return { items, total };
}

/**
 * What a reviewer sees. Blind review (the run's setting, on by default) withholds the run
 * name, policy version and automatic reward until this review has a verdict.
 */
export async function reviewItem(db: Db, reviewId: string, viewer: { id: string | null; role: string }) {
  const [row] = await db
    .select({ review: reviews, episode: episodes, task: tasks, runName: runs.name, config: runs.config, reward: rewards, policyVersion: policyVersions.version })
    .from(reviews)
    .innerJoin(episodes, eq(episodes.id, reviews.episodeId))
    .innerJoin(runs, eq(runs.id, reviews.runId))
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .leftJoin(policyVersions, eq(policyVersions.id, episodes.policyVersionId))
    .where(eq(reviews.id, reviewId));
  if (!row) throw new DomainError('NOT_FOUND', `no review item ${reviewId}`);
  const blind = reviewConfig.parse(row.config.review ?? {}).blind;
  const revealed = !blind || row.review.verdict !== null;
  const turnRows = await db.select({ index: turns.index, action: turns.action, observation: turns.observation, stdout: turns.stdout, stderr: turns.stderr,
    exitCode: turns.exitCode, execStatus: turns.execStatus }).from(turns).where(eq(turns.episodeId, row.episode.id)).orderBy(asc(turns.index));
  // The environment's baseline: the hash registered under the environment's name.
  const [baseline] = row.reward?.envHash
    ? await db.select({ name: environments.name, contentHash: environments.contentHash, quarantinedAt: environments.quarantinedAt }).from(environments)
      .where(eq(environments.name, row.task?.environmentName ?? 'default'))
    : [];
  const history = await db.select().from(reviewEvents).where(eq(reviewEvents.reviewId, reviewId)).orderBy(asc(reviewEvents.id));
  const reward = row.reward;
  return {
    id: row.review.id,
    episodeId: row.episode.id,
    sampleReason: row.review.sampleReason,
    slot: row.review.slot,
    verdict: row.review.verdict,
    correctedReward: row.review.correctedReward,
    note: row.review.note,
    heldByMe: row.review.reviewerId !== null && row.review.reviewerId === viewer.id,
    claimExpiresAt: row.review.claimExpiresAt,
    blind,
    revealed,
    task: row.task ? { externalId: row.task.externalId, language: row.task.language, prompt: row.task.prompt, entryPoint: row.task.entryPoint, tests: row.task.tests } : null,
    turns: turnRows,
    components: reward?.components ?? null,
    envHash: reward?.envHash ?? row.episode.envHash,
    baselineEnv: baseline ? { name: baseline.name, hash: baseline.contentHash, matches: baseline.contentHash === reward?.envHash, quarantined: !!baseline.quarantinedAt } : null,
    // Withheld under blind review until a verdict is given.
    runName: revealed ? row.runName : null,
    runId: revealed ? row.review.runId : null,
    policyVersion: revealed ? row.policyVersion : null,
    reward: revealed ? (reward?.value ?? null) : null,
    history,
  };
}
