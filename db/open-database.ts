import fs from 'node:fs';
import path from 'node:path';
import { settings } from '@/core/settings';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { CATALOG_ONLY_SEARCH_PATH, connect, type Database } from './client';
import { ensureDatabase, startEmbeddedPostgres, storedPassword, withUser, type EmbeddedServer } from './embedded';
import { applyMigrations, migrationsPending } from './migrate';
import {
  defaultRoleNames,
  ensureRoles,
  grantAppRole,
  OWNS_AUDIT_LOG_WARNING,
  ownsAuditLog,
  refuseUnsafeRole,
  transferOwnership,
  type RoleNames,
} from './roles';

/** Where Crucible keeps its data (embedded database, environments, checkpoints): CRUCIBLE_DATA_DIR. */
export function dataDir(): string {
  // turbopackIgnore: a runtime path, not a file the server bundle should trace.
  return path.resolve(/* turbopackIgnore: true */ settings().CRUCIBLE_DATA_DIR);
}

/** Where this host's built environments live: CRUCIBLE_ENV_STORE, else `<dataDir>/envs` (the sandbox library's `storeDirFor`). */
export function envStoreDir(): string {
  return storeDirFor(dataDir(), settings().CRUCIBLE_ENV_STORE);
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

/** Where to connect: `appUrl` for everything; `ownerUrl`, when known, for migrations. */
export type DatabaseUrls = { appUrl: string; ownerUrl?: string };

/**
 * Resolve the database the same way everywhere: DATABASE_URL (the app role; migrations as
 * DATABASE_OWNER_URL when set) if set; else the embedded server a running `npm start`
 * advertises in <data>/runtime.json; else (when allowed) start the embedded server under
 * <data>/pg ourselves. Migrations are applied; the app never connects as a superuser.
 */
export async function openDatabase(opts: {
  appName: string;
  /**
   * Start the embedded server when nothing is running: `true` creates <data>/pg if it is
   * missing (`npm start`); `'existing'` only starts one whose data is already there (the CLI:
   * a command run where no Crucible ever was must not quietly make an empty one).
   */
  startEmbedded?: boolean | 'existing';
  max?: number;
  log?: (s: string) => void;
  /** another data directory than CRUCIBLE_DATA_DIR (benchmarks' throwaway instances) */
  dataDir?: string;
  /** false: ignore DATABASE_URL and use the data directory's embedded server */
  useDatabaseUrl?: boolean;
}): Promise<OpenedDatabase> {
  const max = opts.max ?? 10;
  const { DATABASE_URL, DATABASE_OWNER_URL } = settings();
  if (DATABASE_URL && opts.useDatabaseUrl !== false) {
    const database = await connectPrepared({ appUrl: DATABASE_URL, ownerUrl: DATABASE_OWNER_URL }, { max, appName: opts.appName });
    return { database, close: () => database.close() };
  }
  const dir = opts.dataDir ? path.resolve(opts.dataDir) : dataDir();
  const rf = runtimeFile(dir);
  if (fs.existsSync(rf)) {
    const { databaseUrl } = JSON.parse(fs.readFileSync(rf, 'utf8')) as RuntimeFile;
    if (await reachable(databaseUrl)) {
      const database = await connectPrepared({ appUrl: databaseUrl }, { max, appName: opts.appName, variable: rf });
      return { database, close: () => database.close() };
    }
  }
  if (!opts.startEmbedded) {
    throw new Error(
      `no database: DATABASE_URL is not set and no Crucible is running with data in ${dir}. ` +
        'Start one with `npm start`, or set DATABASE_URL / CRUCIBLE_DATA_DIR.',
    );
  }
  if (opts.startEmbedded === 'existing' && !fs.existsSync(path.join(dir, 'pg', 'PG_VERSION')))
    throw new Error(
      `no Crucible found: DATABASE_URL is not set, nothing is running with data in ${dir} (${fs.existsSync(rf) ? 'its runtime.json names a server that does not answer' : 'no runtime.json'}), ` +
        `and ${path.join(dir, 'pg')} holds no database. Start Crucible with \`npm start\` (it creates one), ` +
        'call a running one with --url http://HOST:3000 --token crc_… (or CRUCIBLE_URL / CRUCIBLE_TOKEN), or point CRUCIBLE_DATA_DIR or DATABASE_URL at your data.',
    );
  const embedded = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: true, log: opts.log });
  let database: Database;
  try {
    const urls = await prepareEmbeddedDatabase(embedded, path.join(dir, 'pg'));
    database = await connectPrepared(urls, { max, appName: opts.appName });
    writeRuntimeFile(dir, urls.appUrl);
  } catch (e) {
    await embedded.stop().catch(() => {});
    throw e;
  }
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

/**
 * As the embedded server's bootstrap superuser: (re)create the owner and app roles with
 * passwords kept beside the data (`<pgdir>.owner.password`, `<pgdir>.app.password`, 0600),
 * the `crucible` database owned by the owner, and hand it every object older installs
 * created as the superuser. Idempotent; runs at every start. The owner controls the
 * `crucible` database (its `public` schema, `ALTER DATABASE … SET`), so these superuser
 * sessions resolve names in pg_catalog only and drop the settings it could have planted.
 */
export async function prepareEmbeddedDatabase(embedded: EmbeddedServer, pgDir: string, names: RoleNames = defaultRoleNames): Promise<DatabaseUrls> {
  const owner = { name: names.owner, password: storedPassword(`${pgDir}.owner.password`) };
  const app = { name: names.app, password: storedPassword(`${pgDir}.app.password`) };
  const root = connect(embedded.url, { max: 1, appName: 'crucible-bootstrap', searchPath: CATALOG_ONLY_SEARCH_PATH });
  try {
    await ensureRoles(root.sql, { owner, app });
  } finally {
    await root.close();
  }
  const superUrl = await ensureDatabase(embedded.url, 'crucible', owner.name);
  const inDb = connect(superUrl, { max: 1, appName: 'crucible-bootstrap', searchPath: CATALOG_ONLY_SEARCH_PATH });
  try {
    await transferOwnership(inDb.sql, owner.name, app.name);
  } finally {
    await inDb.close();
  }
  return { appUrl: withUser(superUrl, app.name, app.password), ownerUrl: withUser(superUrl, owner.name, owner.password) };
}

/**
 * Connect as the app role, refusing a superuser (or a role that can widen itself or reach
 * server files), and bring the schema up to date: as the owner (then granting the app role)
 * when its URL is known; else, only if something is pending, as the app role itself (a
 * single-role setup where it owns the schema, which is allowed with a warning).
 */
export async function connectPrepared(
  urls: DatabaseUrls,
  opts: { max: number; appName: string; variable?: string; warn?: (message: string) => void },
): Promise<Database> {
  const database = connect(urls.appUrl, { max: opts.max, appName: opts.appName });
  try {
    await refuseUnsafeRole(database.sql, settings().CRUCIBLE_ALLOW_SUPERUSER, opts.variable);
    if (urls.ownerUrl) {
      const owner = connect(urls.ownerUrl, { max: 1, appName: `${opts.appName}-migrate` });
      try {
        const [[me], [them]] = await Promise.all([database.sql`select current_user as u`, owner.sql`select current_user as u`]);
        await applyMigrations(owner, async () => {
          if (me!.u !== them!.u) await grantAppRole(owner.sql, me!.u as string);
        });
      } finally {
        await owner.close();
      }
    } else {
      const migrateIfPending = async () => {
        if (await migrationsPending(database)) await applyMigrations(database);
      };
      await migrateIfPending().catch((e: Error & { code?: string; cause?: { code?: string } }) => {
        if ((e.code ?? e.cause?.code) !== '42501') throw e; // insufficient_privilege (drizzle wraps it in `cause`)
        throw new Error(
          `the database schema is missing or older than this version of Crucible, and this role may not migrate it (${e.message}). ` +
            'Restart `npm start` (it migrates as the owner role), or set DATABASE_OWNER_URL to the role that owns the schema.',
        );
      });
    }
    if (await ownsAuditLog(database.sql)) (opts.warn ?? ((m) => console.warn(`warning: ${m}`)))(OWNS_AUDIT_LOG_WARNING);
  } catch (e) {
    await database.close().catch(() => {});
    throw e;
  }
  return database;
}
