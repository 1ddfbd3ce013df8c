import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/open-database';
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

/**
 * Which database this is: the cluster's system identifier, the database's oid and name.
 * Every name is pg_catalog-qualified (the owner can create a `public.pg_database` view or a
 * `public.current_database()` and, with `ALTER DATABASE … SET search_path`, put them first),
 * and the parts are joined here rather than with a `||` the path could redirect.
 */
export async function databaseIdentity(db: DbOrTx): Promise<string> {
  const rows = await db.execute<{ system: string; oid: string; name: string }>(sql`
    select (select s.system_identifier from pg_catalog.pg_control_system() s)::pg_catalog.text as system,
           d.oid::pg_catalog.text as oid, d.datname::pg_catalog.text as name
    from pg_catalog.pg_database d where d.datname operator(pg_catalog.=) pg_catalog.current_database()`);
  const id = rows[0]!;
  return `${id.system}/${id.oid}/${id.name}`;
}

/** The newest anchor for `database` in `file`, if any (lines that do not parse are skipped). */
export function latestAnchor(file: string, database: string): Anchor | undefined {
  return readAnchors(file)
    .filter((a) => a.database === database)
    .at(-1);
}

function readAnchors(file: string): Anchor[] {
  if (!fs.existsSync(file)) return [];
  const anchors: Anchor[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = LINE.exec(line.trim());
    if (m) anchors.push({ at: m[1]!, database: m[2]!, seq: Number(m[3]), rows: Number(m[4]), hash: m[5]! });
  }
  return anchors;
}

/**
 * The latest anchor for `database`, or why there is none although there should be: a file
 * with anchors, none of them for this database, means the identity changed (spoofed, or a
 * restore into another cluster) or the file belongs to another database. Passing would let
 * a truncated chain start a fresh anchor line, so it fails until someone looks.
 */
export function anchorFor(file: string, database: string): { latest?: Anchor; problem?: string } {
  const anchors = readAnchors(file);
  const latest = anchors.filter((a) => a.database === database).at(-1);
  if (latest || anchors.length === 0) return { latest };
  const others = [...new Set(anchors.map((a) => a.database))];
  return {
    problem:
      `no anchor for this database identity: ${database} (${file} anchors ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}); ` +
      'the identity changed or the anchor file belongs to another database. If this database was legitimately restored or ' +
      'moved, keep the old file as evidence, move it aside and verify again to start a new anchor line',
  };
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
  const { latest, problem: missing } = anchorFor(file, database);
  if (missing) return { problem: missing };
  if (latest) {
    const problem = await anchorProblem(db, latest);
    if (problem) return { problem };
  }
  const [head] = await db.execute<{ seq: string; hash: string; rows: string }>(sql`
    select a.seq::text as seq, a.hash, (select count(*) from audit_log)::text as rows from audit_log a order by a.seq desc limit 1`);
  if (!head || Number(head.seq) === latest?.seq) return {};
  const anchored = { at: new Date().toISOString(), database, seq: Number(head.seq), rows: Number(head.rows), hash: head.hash };
  appendAnchor(file, anchored);
  return { anchored };
}
