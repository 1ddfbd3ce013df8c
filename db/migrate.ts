import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { Database } from './client';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Apply the committed drizzle-kit migrations as the schema owner; safe to call at every
 * start. `after` runs under the same lock (granting the app role: concurrent GRANTs on one
 * object fail with "tuple concurrently updated").
 */
export async function applyMigrations(database: Database, after?: () => Promise<void>): Promise<void> {
  // Serialise concurrent starters (web server and workers racing at boot).
  await database.sql`select pg_catalog.pg_advisory_lock(727274)`;
  try {
    await migrate(database.db, { migrationsFolder });
    await after?.();
  } finally {
    await database.sql`select pg_catalog.pg_advisory_unlock(727274)`;
  }
}

/**
 * Whether this code has migrations the database lacks (drizzle's own rule: a migration is
 * applied when it is newer than the newest recorded one). Needs only SELECT, so processes
 * connected as the app role can check without owner rights.
 */
export async function migrationsPending(database: Database): Promise<boolean> {
  const newest = Math.max(...readMigrationFiles({ migrationsFolder }).map((m) => m.folderMillis));
  const [table] = await database.sql`select pg_catalog.to_regclass('drizzle.__drizzle_migrations') as t`;
  if (!table?.t) return true;
  const [last] = await database.sql<{ at: string | null }[]>`select max(created_at)::text as at from drizzle.__drizzle_migrations`;
  return !last?.at || Number(last.at) < newest;
}
