import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import type { CurrentUser } from '@/server/auth/identity';
import { DomainError } from '@/server/errors';

/**
 * Blind review (docs/reviews.md): a reviewer working a blind item gets nothing that leads to
 * the reward, the run or the policy until they give a verdict. The review item itself
 * withholds them (queue.ts); this module closes the side doors (episode reads).
 */

/** SQL: the run `runAlias` reviews blind (its `review.blind`, on by default). */
export const blindRun = (runAlias: string) =>
  sql`coalesce((${sql.raw(runAlias)}.config->'review'->>'blind')::boolean, true)`;

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
    throw new DomainError('FORBIDDEN',
      'you have a blind review item open: episode reads (trajectories, rewards) are refused until you submit its verdict '
      + 'or release the item (reviews.release); see docs/reviews.md, blind review');
  }
}
