import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { childEnv } from '@/core/settings';
import { connect, type Database } from '@/db/client';
import { ensureDatabase, startEmbeddedPostgres, withDatabase, withUser, type EmbeddedServer } from '@/db/embedded';
import { applyMigrations } from '@/db/migrate';
import { connectPrepared, prepareEmbeddedDatabase } from '@/db/open-database';
import { runs } from '@/db/schema';
import { defaultRunConfig } from '@/core/run-config';
import { appendAudit, verifyAudit } from '@/server/audit/service';
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
    // Its own anchor file: one shared with other databases' anchors fails verify (server/audit/anchors.ts).
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-roles-cli-'));
    const cli = (env: Record<string, string>) =>
      exec('node', ['scripts/crucible.mjs', 'audit', 'verify'], {
        env: childEnv({ DATABASE_URL: superUrl, CRUCIBLE_DATA_DIR: dataDir, ...env }),
        timeout: 60_000,
      }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr }),
      );
    const refused = await cli({});
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.out).toMatch(/superuser.*CRUCIBLE_ALLOW_SUPERUSER=1/);
    expect(await cli({ CRUCIBLE_ALLOW_SUPERUSER: '1' })).toMatchObject({ code: 0, out: expect.stringMatching(/audit log intact/) });
  });

  it('refuses an app role with CREATEROLE or a server-file/program role, inherited or direct', async () => {
    const admin = connect(inject('adminDatabaseUrl'), { max: 1 });
    const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const roles = { createrole: `t_createrole_${suffix}`, group: `t_group_${suffix}`, member: `t_member_${suffix}` };
    try {
      await admin.sql.unsafe(`create role ${roles.createrole} login password 'pw' createrole`);
      // Membership through an intermediate role counts too.
      await admin.sql.unsafe(`create role ${roles.group} nologin in role pg_execute_server_program`);
      await admin.sql.unsafe(`create role ${roles.member} login password 'pw' in role ${roles.group}`);
      const as = (role: string) => withDatabase(withUser(inject('adminDatabaseUrl'), role, 'pw'), new URL(database.url).pathname.slice(1));
      await expect(connectPrepared({ appUrl: as(roles.createrole) }, { max: 1, appName: 'test' })).rejects.toThrow(
        new RegExp(`connects as "${roles.createrole}", which has CREATEROLE.*DATABASE_OWNER_URL.*CRUCIBLE_ALLOW_SUPERUSER=1`),
      );
      await expect(connectPrepared({ appUrl: as(roles.member) }, { max: 1, appName: 'test' })).rejects.toThrow(
        new RegExp(`connects as "${roles.member}", which has membership of pg_execute_server_program`),
      );
    } finally {
      for (const r of [roles.member, roles.group, roles.createrole]) await admin.sql.unsafe(`drop role if exists ${r}`);
      await admin.close();
    }
  });

  it('a single-role setup (the app role owns audit_log) starts with a warning, and `audit verify` says tampering is not prevented', async () => {
    const ownerUrl = ownerConnection(database).url;
    const warnings: string[] = [];
    const single = await connectPrepared({ appUrl: ownerUrl }, { max: 1, appName: 'test', warn: (m) => warnings.push(m) });
    try {
      expect(warnings).toEqual([expect.stringMatching(/application role owns audit_log: tampering by the app role is not prevented/)]);
      expect(await verifyAudit(single.db)).toMatchObject({ ok: true, warning: expect.stringMatching(/owns audit_log/) });
    } finally {
      await single.close();
    }
    // The two-role setup: no warning.
    expect((await verifyAudit(database.db)).warning).toBeUndefined();
    const quiet: string[] = [];
    await (await connectPrepared({ appUrl: database.url }, { max: 1, appName: 'test', warn: (m) => quiet.push(m) })).close();
    expect(quiet).toEqual([]);
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

  it('code the owner plants for the next start (a public.current_database(), a public = operator, search_path settings) never runs as superuser', async () => {
    const urls = await prepareEmbeddedDatabase(server, pgDir);
    const owner = connect(urls.ownerUrl!, { max: 1 });
    try {
      // Logs who ran it and, when that is a superuser, makes the owner one: what an attacker would do.
      const trap = `insert into public.trap_log select current_user, rolsuper from pg_catalog.pg_roles where rolname = current_user;
        if (select rolsuper from pg_catalog.pg_roles where rolname = current_user) then execute 'alter role crucible_owner superuser'; end if;`;
      await owner.sql.unsafe(`create table public.trap_log (who name, super bool)`);
      await owner.sql.unsafe(`grant insert on public.trap_log to public`);
      await owner.sql.unsafe(`create function public.current_database() returns name language plpgsql as $$
        begin ${trap} return pg_catalog.current_database(); end $$`);
      // postgres.js compares oids with = in its type lookup at connect, before any query of ours.
      await owner.sql.unsafe(`create function public.trap_oideq(a oid, b oid) returns bool language plpgsql as $$
        begin ${trap} return a operator(pg_catalog.=) b; end $$`);
      await owner.sql.unsafe(`create operator public.= (leftarg = oid, rightarg = oid, function = public.trap_oideq)`);
      await owner.sql.unsafe(`alter database crucible set search_path = public, pg_catalog`);
      await owner.sql.unsafe(`alter role crucible_owner in database crucible set search_path = public, pg_catalog`);
      await owner.sql.unsafe(`alter role crucible_owner set search_path = public, pg_catalog`);
    } finally {
      await owner.close();
    }

    const next = await prepareEmbeddedDatabase(server, pgDir); // the next start
    const app = await connectPrepared(next, { max: 1, appName: 'test' });
    try {
      const admin = connect(withDatabase(server.url, 'crucible'), { max: 1 });
      try {
        expect(await admin.sql`select who, super from public.trap_log where super`).toEqual([]);
        expect(await admin.sql`select rolsuper from pg_roles where rolname = 'crucible_owner'`).toEqual([{ rolsuper: false }]);
        // The planted settings are gone, so a psql session of any role does not resolve names in public first either.
        const settings = await admin.sql`
          select s.setrole, s.setconfig from pg_db_role_setting s
          where exists (select 1 from unnest(s.setconfig) c where c like 'search_path=%')`;
        expect(settings).toEqual([]);
      } finally {
        await admin.close();
      }
      await expectAppRoleConfined(app.sql);
    } finally {
      await app.close();
    }
  }, 60_000);
});
