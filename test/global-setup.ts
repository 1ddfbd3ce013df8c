import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { settings } from '@/core/settings';
import { connect } from '@/db/client';
import { startEmbeddedPostgres, withDatabase, withUser } from '@/db/embedded';
import { applyMigrations } from '@/db/migrate';
import { ensureRoles, grantAppRole } from '@/db/roles';

/**
 * One throwaway embedded PostgreSQL for each Vitest project that uses a database (integration,
 * system, exclusive; never `unit`) in a test run (or TEST_DATABASE_URL), with a migrated
 * template database; each test file clones it into a fresh database. Tests connect as an app
 * role and migrate as an owner role, like production (db/roles.ts).
 */
export default async function setup(project: TestProject) {
  let adminUrl = settings().TEST_DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  let dir: string | undefined;
  // Projects of one run share this process: names carry the project's too.
  const run = `${process.pid}_${project.name.replace(/[^a-z0-9]/gi, '')}`;
  if (!adminUrl) {
    dir = path.resolve('.test-data', `pg-${run}`);
    fs.rmSync(dir, { recursive: true, force: true });
    const server = await startEmbeddedPostgres({ dir, persistent: false });
    adminUrl = server.url;
    stop = server.stop;
  }
  // Per-run role names: a shared TEST_DATABASE_URL may serve several runs at once.
  const owner = { name: `crucible_owner_t${run}`, password: randomUUID() };
  const app = { name: `crucible_app_t${run}`, password: randomUUID() };
  const template = `crucible_template_${run}`;
  const admin = connect(adminUrl, { max: 1 });
  await ensureRoles(admin.sql, { owner, app });
  await admin.sql.unsafe(`drop database if exists "${template}"`);
  await admin.sql.unsafe(`create database "${template}" owner "${owner.name}"`);
  await admin.close();
  const tdb = connect(withUser(withDatabase(adminUrl, template), owner.name, owner.password), { max: 1 });
  await applyMigrations(tdb, () => grantAppRole(tdb.sql, app.name));
  await tdb.close();
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  project.provide('databaseRoles', {
    owner: { name: owner.name, url: withUser(adminUrl, owner.name, owner.password) },
    app: { name: app.name, url: withUser(adminUrl, app.name, app.password) },
  });
  return async () => {
    const a = connect(adminUrl!, { max: 1 });
    await a.sql.unsafe(`drop database if exists "${template}" with (force)`).catch(() => {});
    if (!dir) for (const r of [app.name, owner.name]) await a.sql.unsafe(`drop role if exists "${r}"`).catch(() => {});
    await a.close();
    await stop?.();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.password`, { force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server's superuser, on its maintenance database. */
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** Server-level URLs (maintenance database) of the two roles; pick a database with withDatabase. */
    databaseRoles: { owner: { name: string; url: string }; app: { name: string; url: string } };
  }
}
