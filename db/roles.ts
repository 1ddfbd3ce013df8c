import { CATALOG_ONLY_SEARCH_PATH, type Sql } from './client';

/**
 * Two database roles instead of one superuser: the OWNER owns the schema and runs
 * migrations; the APPLICATION role (what web, workers and the CLI connect as) can read and
 * write rows and nothing else. It is not a superuser and owns no table, so it cannot
 * `COPY … TO PROGRAM`, disable the audit trigger, or truncate/update/delete audit rows.
 */
export type RoleNames = { owner: string; app: string };
export const defaultRoleNames: RoleNames = { owner: 'crucible_owner', app: 'crucible_app' };

/** Roles whose members can read/write server files or run programs as the postgres user. */
const SERVER_ACCESS_ROLES = ['pg_execute_server_program', 'pg_write_server_files', 'pg_read_server_files'];

const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid role name ${JSON.stringify(name)}: use lower-case letters, digits and _`);
  return `"${name}"`;
};
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Settings the owner (who owns the database) can plant with `ALTER DATABASE … SET` or on its
 * own role, and that would change what a later session runs: `search_path` decides which
 * `current_database()`, `=` or `pg_class` a query means (a superuser session resolving them
 * in the owner's `public` would run the owner's code as superuser); `role` switches identity.
 */
const PLANTABLE_SETTINGS = ['search_path', 'role'];

/**
 * As a superuser: create both roles if missing and (re)set their attributes and passwords.
 * Idempotent, run at every start, so a role someone widened by hand is narrowed again.
 */
export async function ensureRoles(superSql: Sql, roles: { owner: { name: string; password: string }; app: { name: string; password: string } }): Promise<void> {
  for (const r of [roles.owner, roles.app]) {
    const attrs = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(r.password)}`;
    const [exists] = await superSql`select 1 from pg_catalog.pg_roles where rolname operator(pg_catalog.=) ${r.name}`;
    // Two starters racing: the loser's CREATE fails with duplicate_object; ALTER then applies.
    if (!exists)
      await superSql.unsafe(`CREATE ROLE ${ident(r.name)} ${attrs}`).catch((e: { code?: string }) => {
        if (e.code !== '42710') throw e;
      });
    await superSql.unsafe(`ALTER ROLE ${ident(r.name)} ${attrs}`);
    // Session defaults a role may set on itself and that would redirect name lookups (connections pin
    // search_path anyway; this keeps psql sessions of these roles honest too).
    for (const setting of PLANTABLE_SETTINGS) await superSql.unsafe(`ALTER ROLE ${ident(r.name)} RESET ${setting}`);
  }
  // The app role belongs to no role at all (in particular none of SERVER_ACCESS_ROLES).
  const memberships = await superSql<{ role: string }[]>`
    select g.rolname as role from pg_catalog.pg_auth_members m
      join pg_catalog.pg_roles g on g.oid operator(pg_catalog.=) m.roleid join pg_catalog.pg_roles u on u.oid operator(pg_catalog.=) m.member
    where u.rolname operator(pg_catalog.=) any(${[roles.app.name, roles.owner.name]}::pg_catalog.name[])
      and (u.rolname operator(pg_catalog.=) ${roles.app.name} or g.rolname operator(pg_catalog.=) any(${SERVER_ACCESS_ROLES}::pg_catalog.name[]))`;
  for (const { role } of memberships) {
    await superSql.unsafe(`REVOKE "${role.replaceAll('"', '""')}" FROM ${ident(roles.app.name)}, ${ident(roles.owner.name)}`);
  }
}

/**
 * Superuser sessions must see no object the owner created: connect them with
 * `connect(url, { searchPath: CATALOG_ONLY_SEARCH_PATH })` (a startup parameter, so it beats
 * `ALTER DATABASE … SET search_path` and holds from the first query on). Checked, not
 * trusted: a session opened any other way may already be resolving names in `public`.
 */
async function assertCatalogOnlySearchPath(superSql: Sql): Promise<void> {
  const [row] = await superSql.unsafe<{ path: string }[]>('select pg_catalog.current_setting($1) as path', ['search_path']);
  if (row?.path !== CATALOG_ONLY_SEARCH_PATH) {
    throw new Error(
      `a superuser session runs with search_path "${row?.path}"; it must be "${CATALOG_ONLY_SEARCH_PATH}" so no function or table the schema owner ` +
        `created can run or be read as superuser. Open it with connect(url, { searchPath: CATALOG_ONLY_SEARCH_PATH }) (db/client.ts).`,
    );
  }
}

/**
 * As a superuser connected to the application database: make the owner role own the
 * database, the `drizzle` schema and every table, sequence, view, function and type in
 * `public` (installs from before the roles existed had them owned by the superuser), and
 * drop the session defaults the owner may have planted for this database (PLANTABLE_SETTINGS).
 * Runs no code the owner wrote: names resolve in pg_catalog only, and ALTER … OWNER and
 * ALTER … RESET fire no triggers (event triggers need a superuser to create).
 */
export async function transferOwnership(superSql: Sql, owner: string, app?: string): Promise<void> {
  await assertCatalogOnlySearchPath(superSql);
  const o = ident(owner);
  const [db] = await superSql<{ name: string }[]>`select pg_catalog.current_database() as name`;
  const dbName = `"${db!.name.replaceAll('"', '""')}"`;
  await superSql.unsafe(`ALTER DATABASE ${dbName} OWNER TO ${o}`);
  for (const setting of PLANTABLE_SETTINGS) {
    await superSql.unsafe(`ALTER DATABASE ${dbName} RESET ${setting}`);
    for (const role of [owner, app].filter((r): r is string => !!r)) await superSql.unsafe(`ALTER ROLE ${ident(role)} IN DATABASE ${dbName} RESET ${setting}`);
  }
  await superSql.unsafe(`CREATE SCHEMA IF NOT EXISTS drizzle AUTHORIZATION ${o}`);
  await superSql.unsafe(`ALTER SCHEMA drizzle OWNER TO ${o}`);
  const relations = (kinds: string[]) => superSql<{ name: string }[]>`
    select pg_catalog.format('%I.%I', n.nspname, c.relname) as name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
    where n.nspname operator(pg_catalog.=) any('{public,drizzle}'::pg_catalog.name[]) and c.relkind operator(pg_catalog.=) any(${kinds}::pg_catalog."char"[])
      and pg_catalog.pg_get_userbyid(c.relowner) operator(pg_catalog.<>) ${owner}::pg_catalog.name`;
  // Tables first: their serial/identity sequences follow them (and refuse a direct change).
  for (const { name } of await relations(['r', 'p', 'v', 'm', 'f'])) await superSql.unsafe(`ALTER TABLE ${name} OWNER TO ${o}`);
  for (const { name } of await relations(['S'])) await superSql.unsafe(`ALTER SEQUENCE ${name} OWNER TO ${o}`);
  // regprocedure prints public's functions and types schema-qualified (public is not on the path).
  const functions = await superSql<{ sig: string }[]>`
    select p.oid::pg_catalog.regprocedure::pg_catalog.text as sig from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) p.pronamespace
    where n.nspname operator(pg_catalog.=) 'public' and pg_catalog.pg_get_userbyid(p.proowner) operator(pg_catalog.<>) ${owner}::pg_catalog.name`;
  for (const { sig } of functions) await superSql.unsafe(`ALTER FUNCTION ${sig} OWNER TO ${o}`);
  const types = await superSql<{ name: string }[]>`
    select pg_catalog.format('%I.%I', n.nspname, t.typname) as name from pg_catalog.pg_type t join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) t.typnamespace
    where n.nspname operator(pg_catalog.=) 'public' and t.typtype operator(pg_catalog.=) any('{e,d}'::pg_catalog."char"[])
      and pg_catalog.pg_get_userbyid(t.typowner) operator(pg_catalog.<>) ${owner}::pg_catalog.name`;
  for (const { name } of types) await superSql.unsafe(`ALTER TYPE ${name} OWNER TO ${o}`);
}

/**
 * As the owner, after migrations: give the app role row access to every table (and use of
 * every sequence) in `public`, but only SELECT/INSERT on `audit_log`; default privileges
 * cover tables later migrations create. One transaction, so no reader sees a gap.
 */
export async function grantAppRole(ownerSql: Sql, app: string): Promise<void> {
  const a = ident(app);
  await ownerSql.begin(async (tx) => {
    await tx.unsafe(`GRANT USAGE ON SCHEMA public TO ${a}`);
    // Read-only, so processes without owner rights can tell whether migrations are pending.
    await tx.unsafe(`GRANT USAGE ON SCHEMA drizzle TO ${a}`);
    await tx.unsafe(`GRANT SELECT ON drizzle.__drizzle_migrations TO ${a}`);
    await tx.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${a}`);
    await tx.unsafe(`REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM ${a}`);
    await tx.unsafe(`REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM ${a}`);
    await tx.unsafe(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${a}`);
    await tx.unsafe(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${a}`);
    await tx.unsafe(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO ${a}`);
  });
}

/**
 * Refuse an application role with rights beyond rows unless the operator explicitly allowed
 * it: a superuser; CREATEROLE (it can create or widen roles, before PostgreSQL 16 even grant
 * itself the server-access roles); or membership, direct or inherited, of a role that reads
 * or writes server files or runs programs as the postgres user.
 */
export async function refuseUnsafeRole(sql: Sql, allow: boolean, variable = 'DATABASE_URL'): Promise<void> {
  const [me] = await sql<{ name: string; super: boolean; createrole: boolean; server: string[] }[]>`
    select r.rolname as name, r.rolsuper as super, r.rolcreaterole as createrole,
      array(select g from pg_catalog.unnest(${SERVER_ACCESS_ROLES}::pg_catalog.name[]) g
            where pg_catalog.pg_has_role(r.oid, g, 'MEMBER'))::pg_catalog.text[] as server
    from pg_catalog.pg_roles r where r.rolname operator(pg_catalog.=) pg_catalog."current_user"()`;
  if (!me || allow) return;
  const fix =
    'Point DATABASE_URL at an application role without such rights and, to run migrations, set DATABASE_OWNER_URL ' +
    'to the role that owns the schema (see "Database roles" in the README); or set CRUCIBLE_ALLOW_SUPERUSER=1 to accept the risk.';
  if (me.super) {
    throw new Error(
      `${variable} connects as "${me.name}", a PostgreSQL superuser. Crucible refuses to run with superuser rights ` +
        `(they allow running programs on the database host and switching off the audit log's protections). ${fix}`,
    );
  }
  const rights = [
    me.createrole && 'CREATEROLE (it can create and widen roles)',
    me.server.length > 0 && `membership of ${me.server.join(', ')} (server files or programs as the postgres user)`,
  ].filter(Boolean);
  if (rights.length > 0) {
    throw new Error(`${variable} connects as "${me.name}", which has ${rights.join(' and ')}. Crucible refuses to run with these rights. ${fix}`);
  }
}

/**
 * Whether the connected role owns `audit_log` (or is a member of its owner): the single-role
 * setup, where the role that writes audit rows may also disable the append-only trigger,
 * rewrite or truncate the table. Allowed, but start and `audit verify` say so.
 */
export async function ownsAuditLog(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ owns: boolean | null }[]>`
    select pg_catalog.pg_has_role(pg_catalog."current_user"(), c.relowner, 'MEMBER') as owns
    from pg_catalog.pg_class c where c.oid operator(pg_catalog.=) pg_catalog.to_regclass('public.audit_log')`;
  return !!row?.owns;
}

export const OWNS_AUDIT_LOG_WARNING =
  'the application role owns audit_log: tampering by the app role is not prevented (it can disable the append-only trigger, ' +
  'rewrite or truncate the table; anchors still reveal changes older than the latest anchor). Use a separate owner role ' +
  '(DATABASE_OWNER_URL) so the application role owns nothing.';
