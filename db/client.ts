import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema';

export type Db = PostgresJsDatabase<typeof schema>;
export type Sql = postgres.Sql;
export type Database = { db: Db; sql: Sql; url: string; close: () => Promise<void> };

/** Open a connection pool to `url`. One per process; close it on shutdown. */
export function connect(url: string, opts: { max?: number; appName?: string } = {}): Database {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: opts.appName ?? 'crucible' },
  });
  const db = drizzle(sql, { schema });
  return { db, sql, url, close: () => sql.end({ timeout: 5 }) };
}
