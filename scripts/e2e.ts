/**
 * `npm run test:e2e`: build the app if needed, start a throwaway Crucible (fresh data dir,
 * embedded Postgres, known admin password) on a free port, run the Playwright specs against
 * it, then stop it. Exit code is Playwright's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv, settings } from '@/core/settings';
import { buildNeeded, buildNext } from './next-build';
import { freePort } from './free-port';

const root = path.resolve(import.meta.dirname, '..');

/** Same staleness rule as `npm start` (scripts/next-build.ts), so neither rebuilds behind the other. */
async function buildIfNeeded() {
  const reason = buildNeeded(root);
  if (!reason) {
    console.log('[e2e] build is up to date');
    return;
  }
  console.log(`[e2e] ${reason}: next build`);
  const t0 = Date.now();
  try {
    await buildNext(root);
  } catch (e) {
    console.error(`[e2e] ${(e as Error).message}`);
    process.exit(1);
  }
  console.log(`[e2e] built in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}

async function waitForApp(url: string, app: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(`the app exited (${app.exitCode ?? app.signalCode}) before answering; see its output above`);
    try {
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the app did not answer ${url} within ${timeoutMs / 1000}s`);
}

function stopApp(app: ChildProcess, timeoutMs = 30_000): Promise<void> {
  if (app.exitCode !== null || app.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      console.error('[e2e] the app did not stop within 30s of SIGTERM; killing its process group');
      try {
        process.kill(-app.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    app.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    app.kill('SIGTERM');
  });
}

async function main(): Promise<number> {
  await buildIfNeeded();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-e2e-'));
  // As root, embedded Postgres runs as its own user, which must be able to enter the dir.
  fs.chmodSync(dataDir, 0o755);
  const adminPassword = `e2e-admin-${Math.random().toString(36).slice(2, 12)}`;
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = childEnv(
    {
      PORT: String(port),
      CRUCIBLE_DATA_DIR: dataDir,
      CRUCIBLE_ADMIN_PASSWORD: adminPassword,
      NEXT_TELEMETRY_DISABLED: '1',
      DATABASE_URL: undefined, // always the embedded database in the fresh data dir
    },
    // Keep the RL runs the specs launch short (e2e/rl-run.spec.ts): a small SFT warm start, a
    // held-out eval of two tasks without pass@k (no spec reads it; its k sampled attempts per
    // task were most of each evaluation), and alerts evaluated often. Model imports over the API read the vendored models and the specs' temp
    // copies (e2e/models.spec.ts). The caller's values win.
    {
      CRUCIBLE_RL_SFT_STEPS: '20',
      CRUCIBLE_RL_HELDOUT_LIMIT: '2',
      CRUCIBLE_RL_PASS_K: '0',
      CRUCIBLE_IMPORT_ROOTS: `${path.join(root, 'test', 'models')}:${os.tmpdir()}`,
      // e2e/alerts.spec.ts waits for an evaluation: every 2 s instead of 15
      CRUCIBLE_ALERT_EVAL_MS: '2000',
    },
  );

  console.log(`[e2e] starting Crucible on ${baseUrl} with data in ${dataDir}`);
  // tsx directly (what `npx tsx` runs) so SIGTERM reaches start.ts itself, not an npm wrapper.
  // Its own process group lets us clean up everything if it ever hangs.
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  const app = spawn(tsx, ['scripts/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = fs.createWriteStream(path.join(dataDir, 'app.log'));
  const relay = (prefix: string) => (chunk: Buffer) => {
    log.write(chunk);
    if (settings().E2E_VERBOSE) process.stdout.write(chunk.toString().replace(/^/gm, prefix));
  };
  app.stdout!.on('data', relay('[app] '));
  app.stderr!.on('data', relay('[app!] '));

  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let code = 1;
  try {
    const t0 = Date.now();
    await waitForApp(`${baseUrl}/login`, app, 180_000);
    console.log(`[e2e] app answered after ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    const runtimeFile = path.join(dataDir, 'runtime.json');
    if (!fs.existsSync(runtimeFile)) throw new Error(`${runtimeFile} is missing: the specs need it to seed the database`);
    const pw = spawn('npx', ['playwright', 'test', ...process.argv.slice(2)], {
      cwd: root,
      stdio: 'inherit',
      env: childEnv({ E2E_BASE_URL: baseUrl, E2E_ADMIN_PASSWORD: adminPassword, E2E_DATA_DIR: dataDir }),
    });
    code = await new Promise<number>((resolve) => pw.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  } catch (e) {
    console.error(`[e2e] ${(e as Error).message}`);
    const out = fs.existsSync(path.join(dataDir, 'app.log')) ? fs.readFileSync(path.join(dataDir, 'app.log'), 'utf8') : '';
    if (out) console.error(`[e2e] app output (last 4 kB):\n${out.slice(-4096)}`);
    code = 1;
  } finally {
    await stopApp(app);
    log.end();
    if (code === 0 && !settings().E2E_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
    else console.log(`[e2e] app log and data kept in ${dataDir}`);
  }
  if (interrupted) return 130;
  return code;
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
