import { and, asc, desc, eq, gt, gte, ilike, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { episodes, logRecords } from '@/db/schema';
import { LOG_LEVELS, LOG_LEVEL_NUMBERS, type LogLevel } from '@/core/log-records';
import { DomainError } from '@/server/errors';

/**
 * Searching the log records every process ships (server/logs/shipper.ts): by run, episode, job,
 * worker, host, minimum level, text and time range; newest first, paged by keyset (`before`: rows
 * with a smaller id), or oldest first after a cursor (`after`: what `crucible logs --follow`
 * and the console's auto-refresh poll with). Also an episode's timeline, and the retention and
 * size cap the maintenance worker enforces.
 */

const isoTime = (field: string) =>
  z.iso.datetime({ offset: true, message: `${field} must be an ISO 8601 time with a zone, e.g. 2026-12-04T10:00:00Z` }).optional();

export const logsListSchema = z
  .object({
    run: z.uuid('run must be a run id (a UUID)').optional(),
    episode: z.uuid('episode must be an episode id (a UUID)').optional(),
    job: z.number().int().positive().optional(),
    /** a worker id, exactly (e.g. `jobs-3f2a…`) */
    worker: z.string().trim().min(1).max(200).optional(),
    host: z.string().trim().min(1).max(200).optional(),
    /** the lowest level shown */
    level: z.enum(LOG_LEVELS).optional(),
    /** part of the message or of a field's value, any case */
    text: z.string().trim().min(1).max(200).optional(),
    from: isoTime('from'),
    to: isoTime('to'),
    /** keyset: only records older than this id (the `nextBefore` of the previous page) */
    before: z.number().int().min(1).optional(),
    /** follow: only records newer than this id, oldest first (`latest` of the previous call) */
    after: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict()
  .refine((q) => q.before === undefined || q.after === undefined, { message: 'give before (older pages) or after (follow), not both', path: ['after'] })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: 'from must not be after to; swap the two times', path: ['from'] });

export type LogsListInput = z.input<typeof logsListSchema>;
export type LogRecordRow = typeof logRecords.$inferSelect;

const likeEscape = (s: string) => s.replace(/[%_\\]/g, '\\$&');

/** The levels at or above `min`. */
export const levelsFrom = (min: LogLevel): LogLevel[] => LOG_LEVELS.filter((l) => LOG_LEVEL_NUMBERS[l] >= LOG_LEVEL_NUMBERS[min]);

function filters(q: z.output<typeof logsListSchema>): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (q.run) conds.push(eq(logRecords.runId, q.run));
  if (q.episode) conds.push(eq(logRecords.episodeId, q.episode));
  if (q.job) conds.push(eq(logRecords.jobId, q.job));
  if (q.worker) conds.push(eq(logRecords.workerId, q.worker));
  if (q.host) conds.push(eq(logRecords.host, q.host));
  if (q.level && q.level !== 'trace') conds.push(inArray(logRecords.level, levelsFrom(q.level)));
  if (q.text) {
    const like = `%${likeEscape(q.text)}%`;
    conds.push(or(ilike(logRecords.msg, like), sql`${logRecords.fields}::text ilike ${like}`));
  }
  if (q.from) conds.push(gte(logRecords.at, new Date(q.from)));
  if (q.to) conds.push(lte(logRecords.at, new Date(q.to)));
  const present = conds.filter((c): c is SQL => c !== undefined);
  return present.length ? and(...present) : undefined;
}

/**
 * A page of records. Newest first, `nextBefore` the cursor of the next (older) page (null on the
 * last); with `after`, the records newer than it, oldest first. `latest` is the newest id seen
 * (or `after` when none is new): the next follow call's cursor.
 */
export async function listLogs(db: Db, input: LogsListInput) {
  const q = logsListSchema.parse(input);
  const where = filters(q);
  if (q.after !== undefined) {
    const items = await db
      .select()
      .from(logRecords)
      .where(and(where, gt(logRecords.id, q.after)))
      .orderBy(asc(logRecords.id))
      .limit(q.limit);
    return { items, nextBefore: null, latest: items.at(-1)?.id ?? q.after };
  }
  // one row more than asked: whether an older page exists, without counting
  const rows = await db
    .select()
    .from(logRecords)
    .where(q.before !== undefined ? and(where, lt(logRecords.id, q.before)) : where)
    .orderBy(desc(logRecords.id))
    .limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  const latest = items[0]?.id ?? (await newestId(db));
  return { items, nextBefore: rows.length > q.limit ? items.at(-1)!.id : null, latest };
}

async function newestId(db: Db): Promise<number> {
  const [r] = await db.select({ id: logRecords.id }).from(logRecords).orderBy(desc(logRecords.id)).limit(1);
  return r?.id ?? 0;
}

/** One row of an episode's timeline: a record with its time from the first record. */
export type TimelineEntry = LogRecordRow & { offsetMs: number };

export const TIMELINE_LIMIT = 2000;

/**
 * An episode's timeline, oldest first: the records bound to it (its job, sampling, each tool
 * call, sandbox execs, grading, the commit) and the learner step of its run's iteration that
 * trained on it (records of the run with `stage: learner` and its iteration).
 */
export async function episodeTimeline(db: Db, episodeId: string) {
  const id = z.uuid().safeParse(episodeId);
  if (!id.success) throw new DomainError('BAD_REQUEST', `episode must be an episode id (a UUID), got "${episodeId}"`);
  const [ep] = await db.select({ runId: episodes.runId, iteration: episodes.iteration }).from(episodes).where(eq(episodes.id, id.data));
  if (!ep) throw new DomainError('NOT_FOUND', `no episode ${episodeId}`);
  const rows = await db
    .select()
    .from(logRecords)
    .where(
      or(
        eq(logRecords.episodeId, id.data),
        and(eq(logRecords.runId, ep.runId), sql`${logRecords.fields} @> ${JSON.stringify({ stage: 'learner', iteration: ep.iteration })}::jsonb`),
      ),
    )
    .orderBy(asc(logRecords.at), asc(logRecords.id))
    .limit(TIMELINE_LIMIT + 1);
  const kept = rows.slice(0, TIMELINE_LIMIT);
  const first = kept[0]?.at.getTime() ?? 0;
  const entries: TimelineEntry[] = kept.map((r) => ({ ...r, offsetMs: r.at.getTime() - first }));
  return { entries, truncated: rows.length > TIMELINE_LIMIT };
}

/**
 * Retention and the size cap: delete records older than `retentionMs`, then all but the newest
 * `maxRows`, in batches (no long lock on a busy table). Returns how many went for each reason.
 */
export async function pruneLogs(db: Db, o: { retentionMs: number; maxRows: number; now?: Date; batch?: number }) {
  const batch = o.batch ?? 20_000;
  const cutoff = new Date((o.now ?? new Date()).getTime() - o.retentionMs);
  let aged = 0;
  for (;;) {
    const r = await db.execute(
      sql`delete from ${logRecords} where ${logRecords.id} in (select ${logRecords.id} from ${logRecords} where ${logRecords.at} < ${cutoff.toISOString()} limit ${batch})`,
    );
    aged += r.count;
    if (r.count < batch) break;
  }
  let capped = 0;
  // the id of the newest record past the cap: it and everything older go
  const [edge] = await db.select({ id: logRecords.id }).from(logRecords).orderBy(desc(logRecords.id)).offset(o.maxRows).limit(1);
  if (edge) {
    for (;;) {
      const r = await db.execute(
        sql`delete from ${logRecords} where ${logRecords.id} in (select ${logRecords.id} from ${logRecords} where ${logRecords.id} <= ${edge.id} limit ${batch})`,
      );
      capped += r.count;
      if (r.count < batch) break;
    }
  }
  return { aged, capped };
}
