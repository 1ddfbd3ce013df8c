import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/runtime';
import type { DbOrTx } from './service';

/**
 * Anchors: the audit chain's head, written now and then to an append-only file outside the
 * database. Someone with owner rights can recompute every hash, delete the newest rows or
 * TRUNCATE the table and leave a chain that verifies on its own; none of that can make the
 * database contain an anchored row with its anchored hash again, so it shows against the
 * latest anchor. Each anchor names the database it belongs to, so one data dir may serve
 * several databases (tests, a restore elsewhere) without false alarms.
 */
export type Anchor = { at: string; database: string; seq: number; rows: number; hash: string };

/** `<data>/audit-anchors.log`, one line per anchor. */
export const anchorFile = (dir = dataDir()) => path.join(dir, 'audit-anchors.log');

const LINE = /^(\S+) database=(\S+) seq=(\d+) rows=(\d+) head=([0-9a-f]{64})$/;

/** Which database this is: the cluster's system identifier and the database's oid (neither can be forged with SQL). */
export async function databaseIdentity(db: DbOrTx): Promise<string> {
  const rows = await db.execute<{ id: string }>(sql`
    select (select system_identifier from pg_control_system())::text || '/' || d.oid::text || '/' || d.datname as id
    from pg_database d where d.datname = current_database()`);
  return rows[0]!.id;
}

/** The newest anchor for `database` in `file`, if any (lines that do not parse are skipped). */
export function latestAnchor(file: string, database: string): Anchor | undefined {
  if (!fs.existsSync(file)) return undefined;
  let latest: Anchor | undefined;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = LINE.exec(line.trim());
    if (m && m[2] === database) latest = { at: m[1]!, database: m[2]!, seq: Number(m[3]), rows: Number(m[4]), hash: m[5]! };
  }
  return latest;
}

/** Append one anchor line and flush it to disk (O_APPEND: concurrent writers never overwrite each other). */
export function appendAnchor(file: string, a: Anchor): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.writeSync(fd, `${a.at} database=${a.database} seq=${a.seq} rows=${a.rows} head=${a.hash}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Why the database no longer matches `anchor` (undefined when it still contains it). */
export async function anchorProblem(db: DbOrTx, anchor: Anchor): Promise<string | undefined> {
  const [found] = await db.execute<{ hash: string | null; rows: string }>(sql`
    select (select hash from audit_log where seq = ${anchor.seq}) as hash,
           (select count(*) from audit_log where seq <= ${anchor.seq})::text as rows`);
  const row = { hash: found!.hash, rows: Number(found!.rows) };
  const since = `anchored at ${anchor.at}`;
  if (row.hash === null) {
    return `row ${anchor.seq} (the head ${since}) is gone: audit rows were deleted or the table was truncated`;
  }
  if (row.hash !== anchor.hash) return `row ${anchor.seq} no longer has the hash ${since}: the chain was rewritten`;
  if (row.rows !== anchor.rows) return `${anchor.rows} rows up to row ${anchor.seq} were ${since}, now there are ${row.rows}`;
  return undefined;
}

/**
 * The maintenance worker's periodic anchor: append the current head unless it is already
 * the latest anchor. If the database no longer contains the latest anchor, anchor nothing
 * (the next anchor must extend the previous one) and report the tampering.
 */
export async function anchorHead(db: Db, file: string): Promise<{ anchored?: Anchor; problem?: string }> {
  const database = await databaseIdentity(db);
  const latest = latestAnchor(file, database);
  if (latest) {
    const problem = await anchorProblem(db, latest);
    if (problem) return { problem };
  }
  const [head] = await db.execute<{ seq: string; hash: string; rows: string }>(sql`
    select seq::text as seq, hash, (select count(*) from audit_log)::text as rows from audit_log order by seq desc limit 1`);
  if (!head || Number(head.seq) === latest?.seq) return {};
  const anchored = { at: new Date().toISOString(), database, seq: Number(head.seq), rows: Number(head.rows), hash: head.hash };
  appendAnchor(file, anchored);
  return { anchored };
}
