import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema';

export type Db = PostgresJsDatabase<typeof schema>;
export type Sql = postgres.Sql;
export type Database = { db: Db; sql: Sql; url: string; close: () => Promise<void> };

/**
 * The search_path every session gets, sent in the startup packet: a startup parameter
 * overrides `ALTER DATABASE/ROLE … SET search_path` (which the schema owner may set), and it
 * is in force before the first query, including postgres.js's own type lookup at connect.
 * `public` leaves pg_catalog implicitly first, so a `public.pg_database` view or a
 * `public.current_database()` function planted by the owner never shadows the catalog.
 */
export const APP_SEARCH_PATH = 'public';
/** For superuser sessions (bootstrap): nothing the owner created is visible by name at all. */
export const CATALOG_ONLY_SEARCH_PATH = 'pg_catalog';

/** Open a connection pool to `url`. One per process; close it on shutdown. */
export function connect(url: string, opts: { max?: number; appName?: string; searchPath?: string } = {}): Database {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: opts.appName ?? 'crucible', search_path: opts.searchPath ?? APP_SEARCH_PATH },
  });
  const db = drizzle(sql, { schema });
  return { db, sql, url, close: () => sql.end({ timeout: 5 }) };
}
