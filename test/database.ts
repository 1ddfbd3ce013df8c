import { afterAll, inject } from 'vitest';
import { connect, type Database } from '@/db/client';
import { withDatabase } from '@/db/embedded';

/**
 * A fresh, migrated database for the calling test file (cloned from the template the
 * global setup built), dropped when the file finishes. It connects as the application role,
 * like every Crucible process; `ownerConnection` gives the schema owner's rights.
 */
export async function freshDatabase(): Promise<Database> {
  const adminUrl = inject('adminDatabaseUrl');
  if (!adminUrl) {
    throw new Error('no test database: this file runs in a Vitest project without Postgres (a *.unit.test.ts is pure); name it *.test.ts');
  }
  const template = inject('templateDatabase');
  const roles = inject('databaseRoles');
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = connect(adminUrl, { max: 1 });
  // CREATE DATABASE ... TEMPLATE needs the template to have no other connections.
  for (let i = 0; ; i++) {
    try {
      await admin.sql.unsafe(`create database "${name}" owner "${roles.owner.name}" template "${template}"`);
      break;
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const database = connect(withDatabase(roles.app.url, name), { max: 10 });
  afterAll(async () => {
    await database.close();
    await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
  });
  return database;
}

/**
 * A connection to the same database as the schema owner (what migrations run as): for
 * tests that create scratch tables (the app role may not) or tamper like an owner would.
 * Closed when the file finishes.
 */
export function ownerConnection(database: Database, opts: { max?: number } = {}): Database {
  const name = new URL(database.url).pathname.slice(1);
  const owner = connect(withDatabase(inject('databaseRoles').owner.url, name), { max: opts.max ?? 2 });
  afterAll(() => owner.close());
  return owner;
}
