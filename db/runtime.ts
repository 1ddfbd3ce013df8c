import fs from 'node:fs';
import path from 'node:path';
import { connect, type Database } from './client';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from './embedded';
import { applyMigrations } from './migrate';

/** Where Crucible keeps its data (embedded database, environments, checkpoints). */
export function dataDir(): string {
  // turbopackIgnore: a runtime path, not a file the server bundle should trace.
  return path.resolve(/* turbopackIgnore: true */ process.env.CRUCIBLE_DATA_DIR ?? '.data');
}

type RuntimeFile = { databaseUrl: string; pid: number; startedAt: string };

const runtimeFile = (dir: string) => path.join(dir, 'runtime.json');

/** Written by whoever started the embedded server, so the CLI and workers can find it. */
export function writeRuntimeFile(dir: string, databaseUrl: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const body: RuntimeFile = { databaseUrl, pid: process.pid, startedAt: new Date().toISOString() };
  fs.writeFileSync(runtimeFile(dir), JSON.stringify(body, null, 2), { mode: 0o600 });
}

export function removeRuntimeFile(dir: string): void {
  fs.rmSync(runtimeFile(dir), { force: true });
}

async function reachable(url: string): Promise<boolean> {
  const probe = connect(url, { max: 1 });
  try {
    await probe.sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.close().catch(() => {});
  }
}

export type OpenedDatabase = { database: Database; embedded?: EmbeddedServer; close: () => Promise<void> };

/**
 * Resolve the database the same way everywhere: DATABASE_URL if set; else the embedded
 * server a running `npm start` advertises in <data>/runtime.json; else (when allowed)
 * start the embedded server under <data>/pg ourselves. Migrations are applied.
 */
export async function openDatabase(opts: { appName: string; startEmbedded?: boolean; max?: number; log?: (s: string) => void }): Promise<OpenedDatabase> {
  const max = opts.max ?? 10;
  if (process.env.DATABASE_URL) {
    const database = connect(process.env.DATABASE_URL, { max, appName: opts.appName });
    await applyMigrations(database);
    return { database, close: () => database.close() };
  }
  const dir = dataDir();
  const rf = runtimeFile(dir);
  if (fs.existsSync(rf)) {
    const { databaseUrl } = JSON.parse(fs.readFileSync(rf, 'utf8')) as RuntimeFile;
    if (await reachable(databaseUrl)) {
      const database = connect(databaseUrl, { max, appName: opts.appName });
      await applyMigrations(database);
      return { database, close: () => database.close() };
    }
  }
  if (!opts.startEmbedded) {
    throw new Error(
      `no database: DATABASE_URL is not set and no Crucible is running with data in ${dir}. ` +
        'Start one with `npm start`, or set DATABASE_URL / CRUCIBLE_DATA_DIR.',
    );
  }
  const embedded = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: true, log: opts.log });
  const url = await ensureDatabase(embedded.url, 'crucible');
  writeRuntimeFile(dir, url);
  const database = connect(url, { max, appName: opts.appName });
  await applyMigrations(database);
  return {
    database,
    embedded,
    close: async () => {
      await database.close();
      removeRuntimeFile(dir);
      await embedded.stop();
    },
  };
}
