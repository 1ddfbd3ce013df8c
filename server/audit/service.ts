import { createHash } from 'node:crypto';
import { asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { auditLog } from '@/db/schema';
import { OWNS_AUDIT_LOG_WARNING } from '@/db/roles';
import { anchorFor, anchorProblem, appendAnchor, databaseIdentity } from './anchors';
import { canonicalJson } from './canonical';

/** A drizzle handle or an open transaction: audit rows are written inside the caller's transaction. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export type AuditEntry = {
  actor: string;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
};

const GENESIS = '0'.repeat(64);
// Arbitrary constant: serialises appends so each row links to the true previous row.
const CHAIN_LOCK = 4_201_337;

function rowHash(prevHash: string, at: string, e: AuditEntry): string {
  const body = canonicalJson({
    at,
    actor: e.actor,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId ?? null,
    details: e.details ?? {},
  });
  return createHash('sha256').update(prevHash).update('\n').update(body).digest('hex');
}

/** Append one hash-chained row. Call with the transaction that makes the change it records. */
export async function appendAudit(db: DbOrTx, entry: AuditEntry): Promise<{ seq: number; hash: string }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CHAIN_LOCK})`);
    const [last] = await tx.select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
    const prevHash = last?.hash ?? GENESIS;
    const at = new Date().toISOString();
    const hash = rowHash(prevHash, at, entry);
    const [row] = await tx
      .insert(auditLog)
      .values({
        at,
        actor: entry.actor,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId ?? null,
        details: entry.details ?? {},
        prevHash,
        hash,
      })
      .returning({ seq: auditLog.seq });
    return { seq: row!.seq, hash };
  });
}

/** `warning`: set when the connected role owns audit_log (single-role setup), so the checks cannot rule out its own tampering. */
export type AuditVerification = (
  | { ok: true; rows: number; headSeq: number; headHash: string; anchor?: { at: string; seq: number; file: string } }
  | { ok: false; rows: number; brokenAt: number; reason: string }
) & { warning?: string };

export type VerifyOptions = {
  /** Also check against the latest anchor in this file, and anchor the verified head there. */
  anchorFile?: string;
  /** A head hash saved earlier (e.g. printed by a previous verify): it must still be in the chain. */
  expectHead?: string;
};

/**
 * Walk the chain from the first row, recomputing every hash. An edited row fails its own
 * hash; a deleted or inserted row breaks the next row's link to its predecessor. A chain
 * recomputed from scratch, or with its newest rows deleted or truncated, only shows against
 * a head saved outside the database: the latest anchor, or `expectHead`.
 */
export async function verifyAudit(db: Db, opts: VerifyOptions = {}): Promise<AuditVerification> {
  const result = await verifyChain(db, opts);
  // Same check as ownsAuditLog (db/roles.ts), through drizzle.
  const [row] = await db.execute<{ owns: boolean | null }>(sql`
    select pg_catalog.pg_has_role(pg_catalog."current_user"(), c.relowner, 'MEMBER') as owns
    from pg_catalog.pg_class c where c.oid operator(pg_catalog.=) pg_catalog.to_regclass('public.audit_log')`);
  return row?.owns ? { ...result, warning: OWNS_AUDIT_LOG_WARNING } : result;
}

async function verifyChain(db: Db, opts: VerifyOptions): Promise<AuditVerification> {
  let prevHash = GENESIS;
  let after = 0;
  let rows = 0;
  for (;;) {
    const batch = await db
      .select({
        seq: auditLog.seq,
        // Rebuild the exact ISO string that was hashed (ms precision, UTC).
        at: sql<string>`to_char(${auditLog.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        actor: auditLog.actor,
        action: auditLog.action,
        targetType: auditLog.targetType,
        targetId: auditLog.targetId,
        details: auditLog.details,
        prevHash: auditLog.prevHash,
        hash: auditLog.hash,
      })
      .from(auditLog)
      .where(gt(auditLog.seq, after))
      .orderBy(asc(auditLog.seq))
      .limit(1000);
    if (batch.length === 0) break;
    for (const r of batch) {
      rows++;
      if (r.prevHash !== prevHash) {
        return { ok: false, rows, brokenAt: r.seq, reason: `row ${r.seq} does not link to the row before it (a row was deleted or inserted)` };
      }
      if (rowHash(prevHash, r.at, r) !== r.hash) {
        return { ok: false, rows, brokenAt: r.seq, reason: `row ${r.seq} was modified after it was written (hash mismatch)` };
      }
      prevHash = r.hash;
      after = r.seq;
    }
  }
  if (opts.expectHead) {
    const [found] = await db.select({ seq: auditLog.seq }).from(auditLog).where(eq(auditLog.hash, opts.expectHead)).limit(1);
    if (!found) {
      return {
        ok: false,
        rows,
        brokenAt: after,
        reason: `no row has the expected head ${opts.expectHead}: rows after it were deleted, the table was truncated, or the chain was rewritten`,
      };
    }
  }
  let anchor: { at: string; seq: number; file: string } | undefined;
  if (opts.anchorFile) {
    const database = await databaseIdentity(db);
    const { latest, problem: missing } = anchorFor(opts.anchorFile, database);
    if (missing) return { ok: false, rows, brokenAt: after, reason: missing };
    if (latest) {
      const problem = await anchorProblem(db, latest);
      if (problem) return { ok: false, rows, brokenAt: latest.seq, reason: `${problem} (anchor in ${opts.anchorFile})` };
    }
    anchor = latest && { at: latest.at, seq: latest.seq, file: opts.anchorFile };
    if (rows > 0 && after !== latest?.seq) {
      appendAnchor(opts.anchorFile, { at: new Date().toISOString(), database, seq: after, rows, hash: prevHash });
    }
  }
  return { ok: true, rows, headSeq: after, headHash: prevHash, anchor };
}
