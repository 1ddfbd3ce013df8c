// `npm start` (production), `npm run dev` (--dev), `tsx scripts/start.ts --workers-only`.
// Starts the database (embedded under $CRUCIBLE_DATA_DIR/pg unless DATABASE_URL is set),
// the web server and the worker supervisor; Ctrl-C or SIGTERM stops all of it, in order.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { childEnv, settings } from '@/core/settings';
import { dataDir, openDatabase, type OpenedDatabase } from '@/db/open-database';
import { defaultWorkerSpecs, startSupervisor, type ProcessSpec, type Supervisor } from '@/workers/supervisor';
import { buildNeeded, buildNext } from './next-build';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Marks the detached session process (see `foreground`) and names its parent; read back as settings().CRUCIBLE_START_PARENT. */
const SESSION_ENV = 'CRUCIBLE_START_PARENT';

const usage = `usage: npm start [-- options]     (npm run dev = npm start -- --dev)
  --dev               next dev instead of a production build
  --workers-only      only the database connection and the workers (scale-out worker
                      machines sharing one DATABASE_URL; tests)
  --job-workers <n>   job-worker processes (env CRUCIBLE_JOB_WORKERS, default 1)
  --no-build          use the existing production build even if sources are newer
Environment: PORT (default 3000), CRUCIBLE_DATA_DIR (default .data/), DATABASE_URL
(use that PostgreSQL instead of the embedded one, as a non-superuser app role),
DATABASE_OWNER_URL (the schema owner, for migrations), CRUCIBLE_ADMIN_PASSWORD (first start).`;

type Options = { dev: boolean; workersOnly: boolean; noBuild: boolean; jobWorkers: number; port: number };

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      dev: { type: 'boolean', default: false },
      'workers-only': { type: 'boolean', default: false },
      'job-workers': { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return undefined;
  }
  // PORT and CRUCIBLE_JOB_WORKERS are validated by core/settings.ts; the flag here.
  const { PORT: port, CRUCIBLE_JOB_WORKERS } = settings();
  const jobWorkers = Number(values['job-workers'] ?? CRUCIBLE_JOB_WORKERS);
  if (!Number.isInteger(jobWorkers) || jobWorkers < 0) throw new Error(`--job-workers must be a whole number, got ${values['job-workers']}`);
  return { dev: values.dev!, workersOnly: values['workers-only']!, noBuild: values['no-build']!, jobWorkers, port };
}

const log = (line: string) => console.log(`crucible: ${line}`);

/**
 * The process the user started. It runs the real work in a detached session so that a
 * terminal Ctrl-C (sent to the whole foreground process group) does not also hit the
 * embedded Postgres and the workers at once; instead we forward it and the session stops
 * things in order: web and workers first, the database last.
 */
async function foreground(argv: string[]): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...argv], {
    cwd: root,
    stdio: 'inherit',
    detached: true,
    env: childEnv({ [SESSION_ENV]: String(process.pid), CRUCIBLE_DATA_DIR: dataDir() }),
  });
  // One Ctrl-C often arrives twice (from the terminal and relayed by npm/tsx wrappers);
  // only a second press a moment later means "stop waiting and kill everything".
  let lastForward = 0;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (Date.now() - lastForward < 1_000) return;
      lastForward = Date.now();
      try {
        child.kill('SIGTERM');
      } catch {
        /* already gone */
      }
    });
  }
  return new Promise((resolve) => child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

/** A command whose failure is only worth a warning; `signal` cancels it. */
function runQuietly(command: string, args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env, signal });
    child.once('error', () => resolve(-1));
    child.once('close', (code) => resolve(code ?? -1));
  });
}

async function waitForHttp(url: string, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!signal.aborted && Date.now() < until) {
    try {
      await fetch(url, { redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(5_000)]) });
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  return false;
}

/**
 * As root, the embedded server runs as a dedicated unprivileged user, which must be able
 * to pass through the data dir to reach <data>/pg. A private (0700) dir, e.g. from
 * mkdtemp, would make initdb fail with "Permission denied": allow traversal (x), not listing.
 */
function letPostgresUserThrough(dir: string): void {
  if (process.getuid?.() !== 0 || settings().DATABASE_URL) return;
  fs.mkdirSync(dir, { recursive: true });
  const mode = fs.statSync(dir).mode & 0o777;
  if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o011);
}

/** What has started so far, for the shutdown path (which may run mid-startup). */
type Started = { opened?: Promise<OpenedDatabase>; supervisor?: Supervisor; supervisorLog?: { close(): Promise<void> } };

/** The detached session: everything `npm start` runs, and its ordered shutdown. */
async function session(o: Options): Promise<void> {
  const stopping = new AbortController();
  const started: Started = {};
  let signals = 0;

  let shuttingDown: Promise<never> | undefined;
  const shutdown = (why: string, code = 0) =>
    (shuttingDown ??= (async () => {
      log(`${why}: stopping…`);
      stopping.abort();
      await started.supervisor?.stop();
      await started.supervisorLog?.close().catch(() => {});
      const db = await started.opened?.catch(() => undefined);
      await db?.close().catch((e) => log(`closing the database failed: ${(e as Error).message}`));
      log('stopped');
      process.exit(code);
    })());
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals === 1) return void shutdown(sig);
    log(`${sig} again: killing everything now`);
    started.supervisor?.kill();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // If the foreground process is killed outright, do not outlive it.
  const parent = settings().CRUCIBLE_START_PARENT;
  setInterval(() => {
    if (process.ppid !== parent && !stopping.signal.aborted) void shutdown('parent process gone');
  }, 1_000).unref();

  try {
    await startEverything(o, started, stopping.signal);
  } catch (e) {
    console.error(`crucible: ${(e as Error).message}`);
    await shutdown('startup failed', 1);
  }
}

async function startEverything(o: Options, started: Started, signal: AbortSignal): Promise<void> {
  const deps = await runQuietly('bash', [path.join(root, 'scripts/system-deps.sh')], childEnv({}, { CRUCIBLE_SKIP_BROWSER: '1' }), signal);
  if (deps !== 0 && !signal.aborted) log('warning: system packages check failed (see above); sandboxes may not work until they are installed');

  if (!o.workersOnly) {
    if (!(await portFree(o.port))) throw new Error(`port ${o.port} is already in use; set PORT to a free port (e.g. PORT=3001 npm start)`);
    const reason = o.dev ? null : o.noBuild ? (buildNeeded(root) === 'no build yet' ? 'no build yet' : null) : buildNeeded(root);
    if (reason) {
      log(`building the web app (${reason})…`);
      await buildNext(root, signal);
    }
  }
  if (signal.aborted) return;

  letPostgresUserThrough(dataDir());
  started.opened = openDatabase({ appName: 'crucible-start', startEmbedded: true, max: 4 });
  const { database, embedded } = await started.opened;
  if (embedded) log(`embedded PostgreSQL on 127.0.0.1:${embedded.port}, data in ${path.join(dataDir(), 'pg')}`);
  else {
    const u = new URL(database.url);
    log(
      `database ${u.hostname}:${u.port || 5432}${u.pathname}${settings().DATABASE_URL ? ' (DATABASE_URL)' : ' (of the Crucible already running on this data dir)'}`,
    );
  }
  if (signal.aborted) return;

  if (!o.workersOnly) {
    const { ensureInitialAdmin } = await import('@/server/users/service');
    const adminPassword = settings().CRUCIBLE_ADMIN_PASSWORD;
    const admin = await ensureInitialAdmin(database.db, adminPassword);
    if (admin.created) {
      const fromEnv = Boolean(adminPassword);
      console.log(
        [
          '',
          '  ┌ First start: an administrator account was created.',
          `  │   username: ${admin.username}`,
          `  │   password: ${fromEnv ? '(from CRUCIBLE_ADMIN_PASSWORD)' : admin.password}`,
          fromEnv ? '  └' : '  └ This password is shown only once. Sign in and keep it safe (or change it).',
          '',
        ].join('\n'),
      );
    }
  }

  const web: ProcessSpec[] = o.workersOnly
    ? []
    : // Our HTTP front around Next (not `next start`): it stamps each request with its real peer address.
      [
        {
          name: 'web',
          command: process.execPath,
          args: [path.join(root, 'scripts/web-server.mjs'), ...(o.dev ? ['--dev'] : []), '-p', String(o.port)],
          env: { NEXT_TELEMETRY_DISABLED: '1' },
        },
      ];
  const specs = [...web, ...defaultWorkerSpecs({ jobWorkers: o.jobWorkers })];
  if (signal.aborted) return;
  // Children connect as the app role; the schema is migrated already, so they never get owner credentials.
  // The supervisor's own lines (restarts, a worker that could not start) also go to log_records,
  // so /logs shows why a worker restarted; the terminal keeps them as text (stdout discarded here).
  const { createProcessLogger } = await import('@/server/logs/logger');
  const supervisorLog = createProcessLogger({ process: 'supervisor', settings: settings(), stdout: { write: () => true } });
  supervisorLog.attach(database.db);
  started.supervisorLog = supervisorLog;
  const supervisor = startSupervisor({
    specs,
    env: { DATABASE_URL: database.url, DATABASE_OWNER_URL: undefined, PORT: String(o.port) },
    log: (l) => {
      console.log(l);
      if (l.startsWith('supervisor: ')) supervisorLog.logger.warn(l.slice('supervisor: '.length));
      else if (/^\[[^\]]+\] could not start: /.test(l)) supervisorLog.logger.error(l);
    },
  });
  started.supervisor = supervisor;
  log(
    `started ${specs.map((s) => s.name).join(', ')} (pids ${supervisor
      .status()
      .map((s) => s.pid)
      .join(', ')})`,
  );

  if (o.workersOnly) {
    log('workers running; Ctrl-C to stop');
    return;
  }
  const url = `http://localhost:${o.port}`;
  if (await waitForHttp(url, signal, o.dev ? 300_000 : 120_000)) log(`Crucible is running at ${url}  (Ctrl-C to stop)`);
  else if (!signal.aborted) log(`the web server is not answering at ${url} yet; see its output above`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const o = parseOptions(argv);
  if (!o) return;
  if (!settings().CRUCIBLE_START_PARENT) {
    process.exitCode = await foreground(argv);
    return;
  }
  await session(o);
}

await main();
