import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { settings } from '@/core/settings';
import { connect } from '@/db/client';
import { startEmbeddedPostgres, withDatabase, withUser } from '@/db/embedded';
import { applyMigrations } from '@/db/migrate';
import { ensureRoles, grantAppRole } from '@/db/roles';

type TestDatabase = {
  adminUrl: string;
  template: string;
  owner: { name: string; password: string };
  app: { name: string; password: string };
  release: () => Promise<void>;
};

/**
 * One throwaway embedded PostgreSQL for the whole test run (or TEST_DATABASE_URL), with a
 * migrated template database; each test file clones it into a fresh database. Tests connect
 * as an app role and migrate as an owner role, like production (db/roles.ts). The Vitest
 * projects that use a database (integration, system, exclusive; never `unit`) run this setup
 * each, in the same process: they share the one server (the first starts it, the last to
 * finish stops it).
 */
export default async function setup(project: TestProject) {
  const shared = globalThis as { crucibleTestDatabase?: { users: number; ready: Promise<TestDatabase> } };
  const entry = (shared.crucibleTestDatabase ??= { users: 0, ready: startTestDatabase() });
  entry.users++;
  const { adminUrl, template, owner, app, release } = await entry.ready;
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  project.provide('databaseRoles', {
    owner: { name: owner.name, url: withUser(adminUrl, owner.name, owner.password) },
    app: { name: app.name, url: withUser(adminUrl, app.name, app.password) },
  });
  return async () => {
    if (--entry.users > 0) return;
    shared.crucibleTestDatabase = undefined;
    await release();
  };
}

async function startTestDatabase(): Promise<TestDatabase> {
  let adminUrl = settings().TEST_DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  let dir: string | undefined;
  if (!adminUrl) {
    dir = path.resolve('.test-data', `pg-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    const server = await startEmbeddedPostgres({ dir, persistent: false });
    adminUrl = server.url;
    stop = server.stop;
  }
  // Per-run role names: a shared TEST_DATABASE_URL may serve several runs at once.
  const owner = { name: `crucible_owner_t${process.pid}`, password: randomUUID() };
  const app = { name: `crucible_app_t${process.pid}`, password: randomUUID() };
  const template = `crucible_template_${process.pid}`;
  const admin = connect(adminUrl, { max: 1 });
  await ensureRoles(admin.sql, { owner, app });
  await admin.sql.unsafe(`drop database if exists "${template}"`);
  await admin.sql.unsafe(`create database "${template}" owner "${owner.name}"`);
  await admin.close();
  const tdb = connect(withUser(withDatabase(adminUrl, template), owner.name, owner.password), { max: 1 });
  await applyMigrations(tdb, () => grantAppRole(tdb.sql, app.name));
  await tdb.close();
  const url = adminUrl;
  const release = async () => {
    const a = connect(url, { max: 1 });
    await a.sql.unsafe(`drop database if exists "${template}" with (force)`).catch(() => {});
    if (!dir) for (const r of [app.name, owner.name]) await a.sql.unsafe(`drop role if exists "${r}"`).catch(() => {});
    await a.close();
    await stop?.();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.password`, { force: true });
  };
  return { adminUrl: url, template, owner, app, release };
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
