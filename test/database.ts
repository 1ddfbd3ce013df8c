import { afterAll, inject } from 'vitest';
import { connect, type Database } from '@/db/client';
import { withDatabase } from '@/db/embedded';

/**
 * A fresh, migrated database for the calling test file (cloned from the template the
 * global setup built), dropped when the file finishes.
 */
export async function freshDatabase(): Promise<Database> {
  const adminUrl = inject('adminDatabaseUrl');
  const template = inject('templateDatabase');
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = connect(adminUrl, { max: 1 });
  // CREATE DATABASE ... TEMPLATE needs the template to have no other connections.
  for (let i = 0; ; i++) {
    try {
      await admin.sql.unsafe(`create database "${name}" template "${template}"`);
      break;
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const database = connect(withDatabase(adminUrl, name), { max: 10 });
  afterAll(async () => {
    await database.close();
    await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
  });
  return database;
}
