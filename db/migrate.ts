import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { Database } from './client';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Apply the committed drizzle-kit migrations; safe to call at every start. */
export async function applyMigrations(database: Database): Promise<void> {
  // Serialise concurrent starters (web server and workers racing at boot).
  await database.sql`select pg_advisory_lock(727274)`;
  try {
    await migrate(database.db, { migrationsFolder });
  } finally {
    await database.sql`select pg_advisory_unlock(727274)`;
  }
}
