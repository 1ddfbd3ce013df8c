import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
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
    const { sql } = database;
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
    await d2.sql.begin(async (tx) => {
      await tx`alter table audit_log disable trigger audit_log_no_update_delete`;
      await tx`delete from audit_log where action = 'a.2'`;
      await tx`alter table audit_log enable trigger audit_log_no_update_delete`;
    });
    const v = await verifyAudit(d2.db);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(/deleted or inserted/);
  });
});
