import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/client';
import type { CurrentUser } from '@/server/auth/identity';
import { DomainError } from '@/server/errors';

/**
 * Blind review (docs/reviews.md): a reviewer working a blind item gets nothing that leads to
 * the reward, the run or the policy until they give a verdict. The review item itself
 * withholds them (queue.ts); this module closes the side doors (episode reads, and the run
 * reads that give the reward by subtraction: runBlindToReviewers below).
 */

/** SQL: the run `runAlias` reviews blind (its `review.blind`, on by default). */
export const blindRun = (runAlias: string) => sql`coalesce((${sql.raw(runAlias)}.config->'review'->>'blind')::boolean, true)`;

/** Does this user have a blind review slot without a verdict (held, or claimed and expired but not yet taken by someone else)? */
export async function hasPendingBlindItem(db: Db, userId: string): Promise<boolean> {
  const rows = await db.execute<{ one: number }>(sql`
    select 1 as one from reviews r join runs ru on ru.id = r.run_id
    where r.reviewer_id = ${userId} and r.verdict is null and ${blindRun('ru')} limit 1`);
  return rows.length > 0;
}

/**
 * Refuse episode reads (trajectories, rewards, episode lists) to a reviewer who has a blind
 * item pending. All episodes, not only that item's: refusing just its episode (or its run's
 * list) would itself tell the reviewer which episode and run the item is. Admins and
 * operators are trusted with rewards and are not limited; viewers cannot claim items.
 */
export async function assertNotBlindReviewing(db: Db, user: CurrentUser): Promise<void> {
  if (user.role !== 'reviewer' || !user.id) return;
  if (await hasPendingBlindItem(db, user.id)) {
    throw new DomainError(
      'FORBIDDEN',
      'you have a blind review item open: episode reads (trajectories, rewards) are refused until you submit its verdict ' +
        'or release the item (reviews.release); see docs/reviews.md, blind review',
    );
  }
}

/**
 * Run-level blindness. Knowing an item's run must not lead to its reward either: a run's
 * aggregates (lastRewardMean, reward_mean/min/max, "iteration N trained: reward …" events)
 * and its other episodes' rewards give the withheld reward by subtraction. So while a run has
 * ANY blind review slot without a verdict, reviewers get none of its reward-derived data
 * (runs.list/get, runs.metrics/compare, runs.events, episodes.list/get) until all of its
 * blind slots are decided. Admins, operators and viewers (who cannot claim items) see it all.
 */
export const runBlindToReviewers = (runId: SQL | string) => sql`exists (select 1 from reviews rv join runs rr on rr.id = rv.run_id
  where rv.run_id = ${runId} and rv.verdict is null and ${blindRun('rr')})`;

/** Whether this caller is limited by blind review (only the reviewer role is). */
export const limitedByBlindReview = (user: Pick<CurrentUser, 'role'>) => user.role === 'reviewer';

/** Of `runIds`, those blind to reviewers now (see runBlindToReviewers). */
export async function runsBlindToReviewers(db: Db, runIds: string[]): Promise<Set<string>> {
  const ids = [...new Set(runIds)];
  if (!ids.length) return new Set();
  const rows = await db.execute<{ run_id: string }>(sql`
    select distinct rv.run_id from reviews rv join runs rr on rr.id = rv.run_id
    where rv.run_id in ${ids} and rv.verdict is null and ${blindRun('rr')}`);
  return new Set(rows.map((r) => r.run_id));
}

/** The message shown in place of withheld reward figures. */
export const REWARD_WITHHELD = 'withheld: blind review open';

/**
 * A run event's message and data without reward figures (e.g. "iteration 3 trained: reward
 * 0.512, …" → "… reward withheld: blind review open, …"); other events are unchanged.
 */
export function redactRewardEvent<E extends { message: string | null; data: unknown }>(e: E): E {
  const message = e.message?.replace(/\b(rewards?(?:[ _](?:mean|min|max))?)[\s:=]+-?\d[\d.eE+-]*/gi, `$1 ${REWARD_WITHHELD}`) ?? null;
  const data =
    e.data && typeof e.data === 'object' && !Array.isArray(e.data)
      ? Object.fromEntries(Object.entries(e.data as Record<string, unknown>).filter(([k]) => !/reward/i.test(k)))
      : e.data;
  return { ...e, message, data };
}

/**
 * The sample reason of a blind item before its verdict. Most reasons are computed from the
 * reward (boundary:near_threshold, boundary:partial_pass, anomaly:*_outlier, anomaly:task_jump),
 * and even "only uniform" versus "something else" says something about it, so the reason is
 * replaced by one constant until the verdict.
 */
export const SAMPLE_REASON_WITHHELD = 'withheld until your verdict (blind review)';
