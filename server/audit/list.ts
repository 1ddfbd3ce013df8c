import { and, desc, eq, gte, ilike, lt, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { auditLog } from '@/db/schema';

/**
 * Reading the audit log: filters (actor, action, target, time range), newest first, paged by
 * keyset (`before`: rows with a smaller seq) so a page deep in a long log costs what the first
 * one does and rows appended meanwhile do not shift the pages. `page` (offset) remains for
 * the CLI's `audit list --page`.
 */

const isoTime = (field: string) =>
  z.iso.datetime({ offset: true, message: `${field} must be an ISO 8601 time with a zone, e.g. 2026-12-04T10:00:00Z` }).optional();

export const auditListSchema = z
  .object({
    page: z.number().int().min(1).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
    /** keyset: only rows older than this seq (the `nextBefore` of the previous page); `page` is then ignored */
    before: z.number().int().min(1).optional(),
    /** part of the actor, any case (e.g. "alice" matches user:alice) */
    actor: z.string().trim().max(200).optional(),
    /** an action, or a prefix ending in `*` (e.g. "run.*") */
    action: z.string().trim().max(100).optional(),
    /** actions left out, e.g. the routine `sandbox.exec` */
    excludeActions: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
    targetType: z.string().trim().max(50).optional(),
    targetId: z.string().trim().max(100).optional(),
    from: isoTime('from'),
    to: isoTime('to'),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: 'from must not be after to; swap the two times', path: ['from'] });

export type AuditListInput = z.input<typeof auditListSchema>;

const likeEscape = (s: string) => s.replace(/[%_\\]/g, '\\$&');

function filters(q: z.output<typeof auditListSchema>): SQL | undefined {
  const conds: SQL[] = [];
  if (q.actor) conds.push(ilike(auditLog.actor, `%${likeEscape(q.actor)}%`));
  if (q.action) conds.push(q.action.endsWith('*') ? sql`${auditLog.action} like ${likeEscape(q.action.slice(0, -1)) + '%'}` : eq(auditLog.action, q.action));
  if (q.excludeActions?.length) conds.push(notInArray(auditLog.action, q.excludeActions));
  if (q.targetType) conds.push(eq(auditLog.targetType, q.targetType));
  if (q.targetId) conds.push(eq(auditLog.targetId, q.targetId));
  if (q.from) conds.push(gte(auditLog.at, new Date(q.from).toISOString()));
  if (q.to) conds.push(lte(auditLog.at, new Date(q.to).toISOString()));
  return conds.length ? and(...conds) : undefined;
}

/** A page of rows, newest first; `nextBefore` is the cursor of the next (older) page, null on the last one. */
export async function listAudit(db: Db, input: AuditListInput) {
  const q = auditListSchema.parse(input);
  const where = filters(q);
  const page = q.before !== undefined ? and(where, lt(auditLog.seq, q.before)) : where;
  // one row more than asked: whether an older page exists, without counting
  const rows = await db
    .select()
    .from(auditLog)
    .where(page)
    .orderBy(desc(auditLog.seq))
    .limit(q.pageSize + 1)
    .offset(q.before !== undefined ? 0 : (q.page - 1) * q.pageSize);
  const items = rows.slice(0, q.pageSize);
  const [{ count } = { count: 0 }] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(auditLog)
    .where(where);
  return { items, total: count, nextBefore: rows.length > q.pageSize ? items[items.length - 1]!.seq : null };
}

/** The actions recorded so far, for the filter's choices. */
export async function auditActions(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ action: auditLog.action }).from(auditLog).orderBy(auditLog.action);
  return rows.map((r) => r.action);
}
