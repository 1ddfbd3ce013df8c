import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connect, type Database } from '@/db/client';
import { ensureDatabase, startEmbeddedPostgres, withDatabase, type EmbeddedServer } from '@/db/embedded';
import { applyMigrations } from '@/db/migrate';
import { connectPrepared, prepareEmbeddedDatabase } from '@/db/runtime';
import { runs } from '@/db/schema';
import { defaultRunConfig } from '@/server/runs/run-config';
import { appendAudit } from '@/server/audit/service';
import { freshDatabase, ownerConnection } from '@/test/database';

const exec = promisify(execFile);
let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
  await appendAudit(database.db, { actor: 'test', action: 'a.0', targetType: 'x' });
});

/** What the app role (the one every test and every Crucible process connects as) may not do. */
async function expectAppRoleConfined(sql: Database['sql']) {
  await expect(sql`copy (select 1) to program 'true'`).rejects.toThrow(/permission denied|must be superuser|pg_execute_server_program/i);
  await expect(sql`alter table audit_log disable trigger all`).rejects.toThrow(/must be owner/);
  await expect(sql`truncate audit_log`).rejects.toThrow(/permission denied/);
  // Refused by privileges, before the append-only trigger is even consulted.
  await expect(sql`delete from audit_log`).rejects.toThrow(/permission denied/);
  await expect(sql`update audit_log set actor = 'mallory'`).rejects.toThrow(/permission denied/);
  await expect(sql`create role mallory superuser`).rejects.toThrow(/permission denied/);
  await expect(sql`create table mallory (x int)`).rejects.toThrow(/permission denied/);
  const [me] = await sql<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean; rolbypassrls: boolean; memberships: string[] }[]>`
    select rolsuper, rolcreaterole, rolcreatedb, rolbypassrls,
      array(select g.rolname from pg_auth_members m join pg_roles g on g.oid = m.roleid where m.member = r.oid) as memberships
    from pg_roles r where rolname = current_user`;
  expect(me).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false, memberships: [] });
}

describe('database roles', () => {
  it('the app role cannot run programs, switch off the audit trigger, truncate or rewrite audit rows, or create roles', async () => {
    await expectAppRoleConfined(database.sql);
  });

  it('the app role still does its job, including on tables a later migration adds', async () => {
    const [run] = await database.db.insert(runs).values({ name: 'as-app', config: defaultRunConfig }).returning();
    await database.sql`update runs set name = 'renamed' where id = ${run!.id}`;
    await database.sql`delete from runs where id = ${run!.id}`;
    expect((await appendAudit(database.db, { actor: 'test', action: 'a.1', targetType: 'x' })).seq).toBeGreaterThan(0);
    // A table the owner creates later (what a new migration does) is granted by default privileges.
    await ownerConnection(database).sql`create table later_table (id bigserial primary key, v text)`;
    await database.sql`insert into later_table (v) values ('ok')`;
    expect(await database.sql`select v from later_table`).toEqual([{ v: 'ok' }]);
    await expect(database.sql`truncate later_table`).rejects.toThrow(/permission denied/);
  });

  it('refuses to start connected as a superuser unless CRUCIBLE_ALLOW_SUPERUSER=1', async () => {
    const superUrl = withDatabase(inject('adminDatabaseUrl'), new URL(database.url).pathname.slice(1));
    await expect(connectPrepared({ appUrl: superUrl }, { max: 1, appName: 'test' })).rejects.toThrow(
      /DATABASE_URL connects as "crucible", a PostgreSQL superuser.*DATABASE_OWNER_URL.*CRUCIBLE_ALLOW_SUPERUSER=1/,
    );
    const cli = (env: Record<string, string>) =>
      exec('node', ['scripts/crucible.mjs', 'audit', 'verify'], { env: { ...process.env, DATABASE_URL: superUrl, ...env }, timeout: 60_000 })
        .then(({ stdout }) => ({ code: 0, out: stdout }), (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr }));
    const refused = await cli({});
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.out).toMatch(/superuser.*CRUCIBLE_ALLOW_SUPERUSER=1/);
    expect(await cli({ CRUCIBLE_ALLOW_SUPERUSER: '1' })).toMatchObject({ code: 0, out: expect.stringMatching(/audit log intact/) });
  });
});

describe('external database (DATABASE_URL = app role, DATABASE_OWNER_URL = owner)', () => {
  it('migrates an empty database as the owner and grants the app role; without the owner URL it says what to do', async () => {
    const roles = inject('databaseRoles');
    const name = `t_ext_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = connect(inject('adminDatabaseUrl'), { max: 1 });
    await admin.sql.unsafe(`create database "${name}" owner "${roles.owner.name}"`);
    const urls = { appUrl: withDatabase(roles.app.url, name), ownerUrl: withDatabase(roles.owner.url, name) };
    try {
      await expect(connectPrepared({ appUrl: urls.appUrl }, { max: 1, appName: 'test' })).rejects.toThrow(/may not migrate it[\s\S]*DATABASE_OWNER_URL/);
      const app = await connectPrepared(urls, { max: 2, appName: 'test' });
      try {
        await app.db.insert(runs).values({ name: 'external', config: defaultRunConfig });
        await appendAudit(app.db, { actor: 'test', action: 'external', targetType: 'x' });
        await expectAppRoleConfined(app.sql);
      } finally {
        await app.close();
      }
      // Later processes with only the app role find nothing pending and start.
      await (await connectPrepared({ appUrl: urls.appUrl }, { max: 1, appName: 'test' })).close();
    } finally {
      await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.close();
    }
  });
});

describe('embedded server roles', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-roles-'));
  const pgDir = path.join(dir, 'pg');
  let server: EmbeddedServer;
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an install from before the roles existed is handed to the owner; the app connects as a confined role; restarts are idempotent', async () => {
    server = await startEmbeddedPostgres({ dir: pgDir, persistent: false });
    // The old layout: everything created and owned by the bootstrap superuser.
    const legacy = connect(await ensureDatabase(server.url, 'crucible'), { max: 1 });
    await applyMigrations(legacy);
    await legacy.close();

    for (let start = 0; start < 2; start++) {
      const urls = await prepareEmbeddedDatabase(server, pgDir);
      const app = await connectPrepared(urls, { max: 2, appName: 'test' });
      try {
        expect(new URL(app.url).username).toBe('crucible_app');
        expect(new URL(urls.ownerUrl!).username).toBe('crucible_owner');
        const owners = await app.sql<{ owner: string }[]>`
          select distinct pg_get_userbyid(c.relowner) as owner from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname in ('public', 'drizzle') and c.relkind in ('r', 'S')`;
        expect(owners).toEqual([{ owner: 'crucible_owner' }]);
        await appendAudit(app.db, { actor: 'test', action: `start.${start}`, targetType: 'x' });
        await expectAppRoleConfined(app.sql);
      } finally {
        await app.close();
      }
    }
    for (const f of [`${pgDir}.owner.password`, `${pgDir}.app.password`]) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
  }, 60_000);
});
