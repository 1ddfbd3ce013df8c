import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { runEvents } from '@/db/schema';

/**
 * A run's events a page at a time, newest first, for the run page's timeline and the CLI.
 * A long run has thousands (phase events, one per iteration step), and the page polls every
 * few seconds while the run is live: it reads the newest page and older pages on request.
 *
 * Paged by keyset on (at, id), the order the timeline shows: `cursor` is the id of the last
 * (oldest) event of the previous page, and the next page holds the events before it in that
 * order. The cursor's own `at` is read in SQL, at the database's microsecond precision, so
 * events that share a timestamp (one transaction's `now()`) are neither repeated nor skipped
 * across a page boundary, and events appended meanwhile do not shift the older pages. The
 * (run_id, at) index bounds the scan to the run's events up to the cursor; they are then
 * top-N sorted (under a millisecond for 2 500 rows). An index on (run_id, at, id) would let a
 * page deep in a very long run read only its own rows.
 */

export const RUN_EVENTS_PAGE = 50;
export const RUN_EVENTS_MAX_PAGE = 500;

export const runEventsPageSchema = z.object({
  id: z.uuid('id must be a run id (uuid)'),
  /** the `nextCursor` of the previous page; absent (or null) for the newest page */
  cursor: z.number().int().min(1, 'cursor must be an event id from nextCursor').nullish(),
  limit: z.number().int().min(1).max(RUN_EVENTS_MAX_PAGE, `at most ${RUN_EVENTS_MAX_PAGE} events a page`).default(RUN_EVENTS_PAGE),
});

export type RunEventsPageInput = z.input<typeof runEventsPageSchema>;

/**
 * One page of a run's events, newest first; `nextCursor` is null on the last (oldest) page.
 * A cursor that is not an event of this run gives an empty page.
 */
export async function listRunEventsPage(db: Db, input: RunEventsPageInput) {
  const q = runEventsPageSchema.parse(input);
  const before =
    q.cursor == null
      ? undefined
      : // `at <=` alone lets the (run_id, at) index bound the scan; the row comparison breaks ties by id
        sql`${runEvents.at} <= (select c.at from run_events c where c.id = ${q.cursor} and c.run_id = ${q.id})
          and (${runEvents.at}, ${runEvents.id}) < (select c.at, c.id from run_events c where c.id = ${q.cursor} and c.run_id = ${q.id})`;
  // one row more than asked: whether an older page exists, without counting
  const rows = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, q.id), before))
    .orderBy(desc(runEvents.at), desc(runEvents.id))
    .limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.id : null };
}
