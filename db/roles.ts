import type { Sql } from './client';

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
 * As a superuser: create both roles if missing and (re)set their attributes and passwords.
 * Idempotent, run at every start, so a role someone widened by hand is narrowed again.
 */
export async function ensureRoles(superSql: Sql, roles: { owner: { name: string; password: string }; app: { name: string; password: string } }): Promise<void> {
  for (const r of [roles.owner, roles.app]) {
    const attrs = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(r.password)}`;
    const [exists] = await superSql`select 1 from pg_roles where rolname = ${r.name}`;
    // Two starters racing: the loser's CREATE fails with duplicate_object; ALTER then applies.
    if (!exists) await superSql.unsafe(`CREATE ROLE ${ident(r.name)} ${attrs}`).catch((e: { code?: string }) => { if (e.code !== '42710') throw e; });
    await superSql.unsafe(`ALTER ROLE ${ident(r.name)} ${attrs}`);
  }
  // The app role belongs to no role at all (in particular none of SERVER_ACCESS_ROLES).
  const memberships = await superSql<{ role: string }[]>`
    select g.rolname as role from pg_auth_members m join pg_roles g on g.oid = m.roleid join pg_roles u on u.oid = m.member
    where u.rolname in ${superSql([roles.app.name, roles.owner.name])} and (u.rolname = ${roles.app.name} or g.rolname in ${superSql(SERVER_ACCESS_ROLES)})`;
  for (const { role } of memberships) {
    await superSql.unsafe(`REVOKE "${role.replaceAll('"', '""')}" FROM ${ident(roles.app.name)}, ${ident(roles.owner.name)}`);
  }
}

/**
 * As a superuser connected to the application database: make the owner role own the
 * database, the `drizzle` schema and every table, sequence, view, function and type in
 * `public` (installs from before the roles existed had them owned by the superuser).
 */
export async function transferOwnership(superSql: Sql, owner: string): Promise<void> {
  const o = ident(owner);
  const [db] = await superSql<{ name: string }[]>`select current_database() as name`;
  await superSql.unsafe(`ALTER DATABASE "${db!.name.replaceAll('"', '""')}" OWNER TO ${o}`);
  await superSql.unsafe(`CREATE SCHEMA IF NOT EXISTS drizzle AUTHORIZATION ${o}`);
  await superSql.unsafe(`ALTER SCHEMA drizzle OWNER TO ${o}`);
  const relations = (kinds: string[]) => superSql<{ name: string }[]>`
    select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in ('public', 'drizzle') and c.relkind in ${superSql(kinds)} and pg_get_userbyid(c.relowner) <> ${owner}`;
  // Tables first: their serial/identity sequences follow them (and refuse a direct change).
  for (const { name } of await relations(['r', 'p', 'v', 'm', 'f'])) await superSql.unsafe(`ALTER TABLE ${name} OWNER TO ${o}`);
  for (const { name } of await relations(['S'])) await superSql.unsafe(`ALTER SEQUENCE ${name} OWNER TO ${o}`);
  const functions = await superSql<{ sig: string }[]>`
    select p.oid::regprocedure::text as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and pg_get_userbyid(p.proowner) <> ${owner}`;
  for (const { sig } of functions) await superSql.unsafe(`ALTER FUNCTION ${sig} OWNER TO ${o}`);
  const types = await superSql<{ name: string }[]>`
    select format('%I.%I', n.nspname, t.typname) as name from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where n.nspname = 'public' and t.typtype in ('e', 'd') and pg_get_userbyid(t.typowner) <> ${owner}`;
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

/** Refuse a superuser connection unless the operator explicitly allowed it. */
export async function refuseSuperuser(sql: Sql, allow: boolean, variable = 'DATABASE_URL'): Promise<void> {
  const [me] = await sql<{ name: string; super: boolean }[]>`select current_user as name, rolsuper as super from pg_roles where rolname = current_user`;
  if (!me?.super || allow) return;
  throw new Error(
    `${variable} connects as "${me.name}", a PostgreSQL superuser. Crucible refuses to run with superuser rights ` +
      '(they allow running programs on the database host and switching off the audit log\'s protections). ' +
      'Point DATABASE_URL at an application role without superuser rights and, to run migrations, set DATABASE_OWNER_URL ' +
      'to the role that owns the schema (see "Database roles" in the README); or set CRUCIBLE_ALLOW_SUPERUSER=1 to accept the risk.',
  );
}
