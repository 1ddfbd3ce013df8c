import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { connect } from '@/db/client';
import { startEmbeddedPostgres, withDatabase } from '@/db/embedded';
import { applyMigrations } from '@/db/migrate';

/**
 * One throwaway embedded PostgreSQL for the whole test run (or TEST_DATABASE_URL), with a
 * migrated template database; each test file clones it into a fresh database.
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  let dir: string | undefined;
  if (!adminUrl) {
    dir = path.resolve('.test-data', `pg-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    const server = await startEmbeddedPostgres({ dir, persistent: false });
    adminUrl = server.url;
    stop = server.stop;
  }
  const template = `crucible_template_${process.pid}`;
  const admin = connect(adminUrl, { max: 1 });
  await admin.sql.unsafe(`drop database if exists "${template}"`);
  await admin.sql.unsafe(`create database "${template}"`);
  await admin.close();
  const tdb = connect(withDatabase(adminUrl, template), { max: 1 });
  await applyMigrations(tdb);
  await tdb.close();
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  return async () => {
    const a = connect(adminUrl!, { max: 1 });
    await a.sql.unsafe(`drop database if exists "${template}" with (force)`).catch(() => {});
    await a.close();
    await stop?.();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.password`, { force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}
