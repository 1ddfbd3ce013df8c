import { beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { Database } from '@/db/client';
import { freshDatabase, ownerConnection } from '@/test/database';
import { callerAs } from '@/test/callers';
import { appendAudit } from './service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
  const { db } = database;
  // 30 routine execs between a few operator actions, as a busy deployment writes them
  for (let i = 0; i < 30; i++) {
    await appendAudit(db, { actor: 'system:sandbox', action: 'sandbox.exec', targetType: 'sandbox', targetId: `sb-${i}`, details: { i } });
    if (i % 10 === 0) await appendAudit(db, { actor: 'user:alice', action: 'run.pause', targetType: 'run', targetId: `run-${i}`, details: { i } });
  }
  await appendAudit(db, { actor: 'user:Bob', action: 'token.revoke', targetType: 'token', targetId: 'tok-1' });
  // an old row, for the time range
  const owner = ownerConnection(database);
  await owner.sql`alter table audit_log disable trigger user`;
  await appendAudit(db, { actor: 'user:carol', action: 'user.update', targetType: 'user', targetId: 'u-1' });
  await owner.sql`update audit_log set at = '2020-01-01T00:00:00Z' where action = 'user.update'`;
  await owner.sql`alter table audit_log enable trigger user`;
});

describe('audit.list filters and keyset paging (real Postgres)', () => {
  it('filters by actor (part, any case), action (exact or prefix*), excluded actions, target and time range', async () => {
    const admin = await callerAs(database.db, 'admin');
    const only = async (input: Parameters<typeof admin.audit.list>[0]) =>
      (await admin.audit.list(input)).items.map((r) => `${r.actor} ${r.action} ${r.targetId}`);
    expect(await only({ actor: 'ALIC' })).toEqual(['user:alice run.pause run-20', 'user:alice run.pause run-10', 'user:alice run.pause run-0']);
    expect((await admin.audit.list({ action: 'sandbox.exec' })).total).toBe(30);
    expect(await only({ action: 'run.*' })).toHaveLength(3);
    expect(await only({ action: 'run' })).toEqual([]); // exact unless it ends in *
    const withoutExec = await admin.audit.list({ excludeActions: ['sandbox.exec'], pageSize: 100 });
    expect(withoutExec.items.some((r) => r.action === 'sandbox.exec')).toBe(false);
    expect(withoutExec.items.map((r) => r.action)).toEqual(expect.arrayContaining(['run.pause', 'token.revoke', 'user.create']));
    expect(await only({ targetType: 'token', targetId: 'tok-1' })).toEqual(['user:Bob token.revoke tok-1']);
    expect(await only({ to: '2021-01-01T00:00:00Z' })).toEqual(['user:carol user.update u-1']);
    expect((await only({ from: '2021-01-01T00:00:00Z', actor: 'carol' })).length).toBe(0);
    expect(await admin.audit.actions()).toEqual(expect.arrayContaining(['run.pause', 'sandbox.exec', 'token.revoke', 'user.update']));
  });

  it('pages by keyset: every matching row once, newest first, and rows appended meanwhile do not shift the pages', async () => {
    const admin = await callerAs(database.db, 'admin');
    const seen: number[] = [];
    let before: number | undefined;
    let pages = 0;
    for (;;) {
      const res = await admin.audit.list({ action: 'sandbox.exec', pageSize: 7, before });
      expect(res.total).toBe(pages === 0 ? 30 : 31); // the count is live; the pages are not shifted by it
      seen.push(...res.items.map((r) => r.seq));
      pages++;
      if (pages === 1) await appendAudit(database.db, { actor: 'system:sandbox', action: 'sandbox.exec', targetType: 'sandbox', targetId: 'late' });
      if (res.nextBefore === null) break;
      before = res.nextBefore;
    }
    expect(pages).toBe(5);
    expect(seen).toHaveLength(30);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    expect(new Set(seen).size).toBe(30);
  });

  it('refuses a bad time range and non-admins with a message saying what to do', async () => {
    const admin = await callerAs(database.db, 'admin');
    const err = await admin.audit.list({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).message).toContain('swap');
    const bad = await admin.audit.list({ from: 'yesterday' }).catch((e: unknown) => e);
    expect((bad as TRPCError).message).toContain('ISO 8601');
    const viewer = await callerAs(database.db, 'viewer');
    expect(((await viewer.audit.list({}).catch((e: unknown) => e)) as TRPCError).code).toBe('FORBIDDEN');
  });
});
