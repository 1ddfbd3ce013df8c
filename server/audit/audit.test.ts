import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import { connect, type Database } from '@/db/client';
import { freshDatabase, ownerConnection } from '@/test/database';
import { callerAs } from '@/test/callers';
import { anchorHead, latestAnchor, databaseIdentity } from './anchors';
import { canonicalJson } from './canonical';
import { appendAudit, verifyAudit } from './service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

describe('audit log', () => {
  it('every mutation appends a chained row, and the chain verifies', async () => {
    const admin = await callerAs(database.db, 'admin', 'root-admin');
    const run = await admin.runs.create({ name: 'audited', config: {} });
    await admin.runs.pause({ id: run.id });
    await admin.users.create({ username: 'bob', password: 'a-long-password', role: 'viewer' });
    const { items } = await admin.audit.list({});
    const actions = items.map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['user.create', 'run.create', 'run.pause']));
    expect(items.find((r) => r.action === 'run.pause')).toMatchObject({ actor: 'user:root-admin', targetType: 'run', targetId: run.id });
    const v = await verifyAudit(database.db);
    expect(v).toMatchObject({ ok: true });
    expect(v.rows).toBe(items.length);
  });

  it('concurrent appends still form one unbroken chain', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => appendAudit(database.db, { actor: 'test', action: `concurrent.${i}`, targetType: 'x' })));
    expect((await verifyAudit(database.db)).ok).toBe(true);
  });

  it('detects a row edited directly in SQL', async () => {
    // Only the schema owner can bypass the append-only trigger (the app role holds no UPDATE at all).
    const { sql } = ownerConnection(database);
    const [row] = await sql<{ seq: number }[]>`select seq from audit_log where action = 'run.pause'`;
    // The append-only trigger refuses ordinary edits; someone with DDL rights can bypass it.
    await expect(sql`update audit_log set actor = 'user:mallory' where seq = ${row!.seq}`).rejects.toThrow(/append-only/);
    await sql.begin(async (tx) => {
      await tx`alter table audit_log disable trigger audit_log_no_update_delete`;
      await tx`update audit_log set details = '{"from":"queued","to":"running"}' where seq = ${row!.seq}`;
      await tx`alter table audit_log enable trigger audit_log_no_update_delete`;
    });
    const v = await verifyAudit(database.db);
    expect(v).toMatchObject({ ok: false, brokenAt: Number(row!.seq) });
    if (!v.ok) expect(v.reason).toMatch(/modified/);
  });

  it('detects a deleted row', async () => {
    const d2 = await freshDatabase();
    for (let i = 0; i < 5; i++) await appendAudit(d2.db, { actor: 'test', action: `a.${i}`, targetType: 'x' });
    await ownerConnection(d2).sql.begin(async (tx) => {
      await tx`alter table audit_log disable trigger audit_log_no_update_delete`;
      await tx`delete from audit_log where action = 'a.2'`;
      await tx`alter table audit_log enable trigger audit_log_no_update_delete`;
    });
    const v = await verifyAudit(d2.db);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(/deleted or inserted/);
  });
});

/** What someone with owner rights can do to the table: any SQL, with the trigger switched off. */
async function asOwnerWithoutTrigger(database: Database, change: (sql: Database['sql']) => Promise<unknown>) {
  await ownerConnection(database, { max: 1 }).sql.begin(async (tx) => {
    await tx`alter table audit_log disable trigger audit_log_no_update_delete`;
    await change(tx as unknown as Database['sql']);
    await tx`alter table audit_log enable trigger audit_log_no_update_delete`;
  });
}

/** The attacker knows the algorithm: recompute every row's links and hashes so the chain verifies on its own. */
async function recomputeChain(sql: Database['sql']) {
  const rows = await sql<
    { seq: number; at: string; actor: string; action: string; target_type: string; target_id: string | null; details: Record<string, unknown> }[]
  >`
    select seq, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, actor, action, target_type, target_id, details
    from audit_log order by seq`;
  let prev = '0'.repeat(64);
  for (const r of rows) {
    const body = canonicalJson({ at: r.at, actor: r.actor, action: r.action, targetType: r.target_type, targetId: r.target_id, details: r.details });
    const hash = createHash('sha256').update(prev).update('\n').update(body).digest('hex');
    await sql`update audit_log set prev_hash = ${prev}, hash = ${hash} where seq = ${r.seq}`;
    prev = hash;
  }
}

describe('audit anchors (tampering by someone with owner rights)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-anchors-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  /** A database with `rows` audit rows whose head is anchored (as the maintenance worker does), and its anchor file. */
  async function anchoredDatabase(rows = 6) {
    const d = await freshDatabase();
    const file = path.join(dir, `anchors-${++n}.log`);
    for (let i = 0; i < rows; i++) await appendAudit(d.db, { actor: 'test', action: `a.${i}`, targetType: 'x', details: { i } });
    if (rows > 0) expect((await anchorHead(d.db, file)).anchored).toMatchObject({ rows });
    return { d, file };
  }

  it('hundreds of rows, anchored as they grow: the anchor is the real head (seq compared as a number, not as text) and verify passes', async () => {
    // seq 10 sorts before 9 as text: a head taken that way made every verify of an untouched database report tampering
    const { d, file } = await anchoredDatabase(0);
    const id = await databaseIdentity(d.db);
    for (let batch = 0; batch < 12; batch++) {
      for (let i = 0; i < 25; i++) await appendAudit(d.db, { actor: 'test', action: `b.${batch}.${i}`, targetType: 'x' });
      const { anchored, problem } = await anchorHead(d.db, file);
      expect(problem).toBeUndefined();
      const [head] = await d.sql<{ seq: string; hash: string }[]>`select seq::text as seq, hash from audit_log order by audit_log.seq desc limit 1`;
      expect(anchored).toMatchObject({ seq: Number(head!.seq), hash: head!.hash, rows: (batch + 1) * 25 });
      expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({ ok: true, rows: (batch + 1) * 25 });
    }
    expect(latestAnchor(file, id)).toMatchObject({ rows: 300 });
    // and genuine tampering on a long chain is still named
    await asOwnerWithoutTrigger(d, async (sql) => {
      await sql`update audit_log set details = '{"edited": true}' where action = 'b.11.24'`;
      await recomputeChain(sql);
    });
    expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({ ok: false, reason: expect.stringMatching(/the chain was rewritten/) });
  });

  it('on a long chain, deleting the newest rows or TRUNCATE is named against the anchor', async () => {
    const { d, file } = await anchoredDatabase(150);
    const head = latestAnchor(file, await databaseIdentity(d.db))!;
    expect(head.rows).toBe(150);
    await asOwnerWithoutTrigger(d, (sql) => sql`delete from audit_log where seq > ${head.seq - 3}`);
    expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({ ok: false, brokenAt: head.seq, reason: expect.stringMatching(/is gone/) });
    await ownerConnection(d, { max: 1 }).sql`truncate audit_log`;
    expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({ ok: false, reason: expect.stringMatching(/is gone/) });
  });

  it('an untampered chain verifies against its anchor, and verify anchors the new head', async () => {
    const { d, file } = await anchoredDatabase();
    const first = latestAnchor(file, await databaseIdentity(d.db))!;
    await appendAudit(d.db, { actor: 'test', action: 'later', targetType: 'x' });
    const v = await verifyAudit(d.db, { anchorFile: file });
    expect(v).toMatchObject({ ok: true, rows: 7, anchor: { seq: first.seq, at: first.at } });
    expect(latestAnchor(file, await databaseIdentity(d.db))).toMatchObject({ rows: 7, hash: v.ok && v.headHash });
    expect(await verifyAudit(d.db, { anchorFile: file, expectHead: first.hash })).toMatchObject({ ok: true });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a row edited and the whole chain recomputed fails against the anchor', async () => {
    const { d, file } = await anchoredDatabase();
    await asOwnerWithoutTrigger(d, async (sql) => {
      await sql`update audit_log set details = '{"i": 99}' where action = 'a.2'`;
      await recomputeChain(sql);
    });
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true }); // the chain alone cannot tell
    const v = await verifyAudit(d.db, { anchorFile: file });
    expect(v).toMatchObject({ ok: false, reason: expect.stringMatching(/no longer has the hash anchored at .*: the chain was rewritten/) });
    // The maintenance worker refuses to anchor over it and reports it.
    expect(await anchorHead(d.db, file)).toMatchObject({ problem: expect.stringMatching(/rewritten/) });
  });

  it('deleted newest rows fail against the anchor and against a saved head', async () => {
    const { d, file } = await anchoredDatabase();
    const head = latestAnchor(file, await databaseIdentity(d.db))!;
    await asOwnerWithoutTrigger(d, (sql) => sql`delete from audit_log where seq >= ${head.seq - 1}`);
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true }); // the chain alone cannot tell
    expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({
      ok: false,
      brokenAt: head.seq,
      reason: expect.stringMatching(/is gone: audit rows were deleted or the table was truncated/),
    });
    expect(await verifyAudit(d.db, { expectHead: head.hash })).toMatchObject({ ok: false, reason: expect.stringMatching(/no row has the expected head/) });
  });

  it('TRUNCATE fails against the anchor', async () => {
    const { d, file } = await anchoredDatabase();
    await ownerConnection(d, { max: 1 }).sql`truncate audit_log`;
    expect(await verifyAudit(d.db)).toMatchObject({ ok: true, rows: 0 }); // the chain alone cannot tell
    expect(await verifyAudit(d.db, { anchorFile: file })).toMatchObject({ ok: false, reason: expect.stringMatching(/is gone/) });
  });

  it('an owner cannot make the verifier see another database identity (and so start a fresh anchor line)', async () => {
    const { d, file } = await anchoredDatabase();
    const identity = await databaseIdentity(d.db);
    const owner = ownerConnection(d, { max: 1 });
    await owner.sql`truncate audit_log`;
    // Shadow the catalog in public and put public first for every new session of this database.
    await owner.sql.unsafe(`create view public.pg_database as select (oid::int8 + 1000000)::oid as oid, datname from pg_catalog.pg_database`);
    await owner.sql.unsafe(`create function public.pg_control_system() returns table (system_identifier int8) language sql as 'select 42::int8'`);
    await owner.sql.unsafe(`alter database "${new URL(d.url).pathname.slice(1)}" set search_path = public, pg_catalog`);
    const app = connect(d.url, { max: 1 }); // a new app session: a restart, or the CLI's `audit verify`
    // Even a session that does not pin search_path (connect's default does) sees the real identity.
    const unpinned = connect(d.url, { max: 1, searchPath: 'public, pg_catalog' });
    try {
      for (let i = 0; i < 2; i++) await appendAudit(app.db, { actor: 'forged', action: `b.${i}`, targetType: 'x' });
      expect(await databaseIdentity(app.db)).toBe(identity);
      expect(await databaseIdentity(unpinned.db)).toBe(identity);
      expect(await verifyAudit(app.db, { anchorFile: file })).toMatchObject({ ok: false, reason: expect.stringMatching(/is gone/) });
      expect(await anchorHead(app.db, file)).toMatchObject({ problem: expect.stringMatching(/is gone/) });
    } finally {
      await app.close();
      await unpinned.close();
    }
  });

  it('an anchor file with anchors, none for this database identity, fails verify and is not anchored over', async () => {
    const { file } = await anchoredDatabase();
    const other = await freshDatabase(); // another identity: what a spoofed or changed identity looks like
    await appendAudit(other.db, { actor: 'test', action: 'elsewhere', targetType: 'x' });
    const before = fs.readFileSync(file, 'utf8');
    const v = await verifyAudit(other.db, { anchorFile: file });
    expect(v).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^no anchor for this database identity: \S+ .*the identity changed or the anchor file belongs to another database/),
    });
    expect(await anchorHead(other.db, file)).toMatchObject({ problem: expect.stringMatching(/no anchor for this database identity/) });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('`crucible audit verify` checks the anchor in the data dir, prints the head, and fails on tampering', async () => {
    const d = await freshDatabase();
    const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
    for (let i = 0; i < 3; i++) await appendAudit(d.db, { actor: 'test', action: `c.${i}`, targetType: 'x' });
    const cli = (args: string[]) =>
      promisify(execFile)('node', ['scripts/crucible.mjs', 'audit', 'verify', ...args], {
        env: childEnv({ DATABASE_URL: d.url, CRUCIBLE_DATA_DIR: dataDir }),
        timeout: 60_000,
      }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
    const first = await cli([]);
    expect(first.code).toBe(0);
    const head = /head: row \d+ ([0-9a-f]{64})/.exec(first.out)![1]!;
    expect(fs.readFileSync(path.join(dataDir, 'audit-anchors.log'), 'utf8')).toContain(`head=${head}`);
    await asOwnerWithoutTrigger(d, async (sql) => {
      await sql`delete from audit_log where action = 'c.2'`;
    });
    const after = await cli(['--expect-head', head]);
    expect(after.code).toBe(1);
    expect(after.out).toMatch(/AUDIT LOG TAMPERED: .*(is gone|expected head)/);
  });
});
