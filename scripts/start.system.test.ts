import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { assert, afterAll, describe, expect, it } from 'vitest';
import { connect } from '@/db/client';
import { runs, workers } from '@/db/schema';
import { defaultRunConfig } from '@/core/run-config';
import { alive, startTs, waitFor, type Proc } from '@/workers/jobs/fixtures/processes';
import { defaultWorkerSpecs } from '@/workers/supervisor';

// A private (0700) temp dir, like e2e uses: start.ts must still let the embedded server's
// dedicated user (when run as root) reach <data>/pg.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-start-test-'));
const started: Proc[] = [];

afterAll(() => {
  for (const p of started) if (alive(p.pid)) p.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}.password`, { force: true });
});

type Running = { proc: Proc; url: string; sessionPid: number; postgresPid: number; workerPids: number[] };

/** `tsx scripts/start.ts --workers-only` on the temp data dir, embedded database. */
async function start(): Promise<Running> {
  const proc = startTs('scripts/start.ts', ['--workers-only'], {
    CRUCIBLE_DATA_DIR: dataDir,
    DATABASE_URL: undefined,
    CRUCIBLE_WORKER_HEARTBEAT_MS: '500',
  });
  started.push(proc);
  await waitFor('workers to be running', async () => proc.output().includes('workers running'), 60_000, 100).catch((e) => {
    throw new Error(`${e.message}\n--- output ---\n${proc.output()}`);
  });
  const runtime = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')) as { databaseUrl: string; pid: number };
  const postgresPid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  // "started maintenance, metrics, scheduler, jobs (pids 1, 2, 3, 4)": every worker the supervisor runs.
  const workerPids = /started [a-z, -]+ \(pids ([\d, ]+)\)/.exec(proc.output())![1]!.split(', ').map(Number);
  return { proc, url: runtime.databaseUrl, sessionPid: runtime.pid, postgresPid, workerPids };
}

async function stop(r: Running): Promise<void> {
  r.proc.child.kill('SIGTERM');
  expect(await r.proc.exited).toBe(0);
  // Nothing left running: the process we started, its session, the workers, postgres.
  const pids = [r.proc.pid, r.sessionPid, r.postgresPid, ...r.workerPids];
  await waitFor('every process to be gone', async () => pids.every((p) => !alive(p)), 5_000).catch(() => {
    throw new Error(`still running: ${pids.filter(alive).join(', ')}\n${r.proc.output()}`);
  });
  expect(fs.existsSync(path.join(dataDir, 'runtime.json'))).toBe(false);
  expect(r.proc.output()).toContain('crucible: stopped');
}

describe('scripts/start.ts --workers-only (embedded database)', () => {
  it('starts workers, stops cleanly on SIGTERM leaving nothing running, and keeps data across restarts', async () => {
    const first = await start();
    expect(first.workerPids).toHaveLength(defaultWorkerSpecs().length);
    let db = connect(first.url, { max: 1 });
    const kinds = ['jobs', 'maintenance', 'metrics', 'sandbox', 'scheduler'];
    // the ceiling is a safety net for a loaded host (5 processes start at once); it says which had registered
    let seen: string[] = [];
    const registered = await waitFor(
      'every worker to register',
      async () => {
        const rows = await db.db.select().from(workers);
        seen = rows.map((w) => w.kind).sort();
        return rows.length === kinds.length && rows;
      },
      120_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message} (registered: ${seen.join(', ') || 'none'} of ${kinds.join(', ')})`);
    });
    expect(registered.map((w) => w.kind).sort()).toEqual(kinds);
    expect(new Set(registered.map((w) => w.pid))).toEqual(new Set(first.workerPids));
    // Every process connects as the confined app role, never as the embedded superuser (db/roles.ts).
    const users = await db.sql<{ usename: string }[]>`select distinct usename from pg_stat_activity where application_name like 'crucible-%'`;
    expect(users).toEqual([{ usename: 'crucible_app' }]);
    const [run] = await db.db.insert(runs).values({ name: 'survives-restart', config: defaultRunConfig }).returning();
    assert(run !== undefined, 'no row found');
    await db.close();
    await stop(first);

    const second = await start();
    expect(second.postgresPid).not.toBe(first.postgresPid);
    db = connect(second.url, { max: 1 });
    try {
      const [again] = await db.db.select().from(runs).where(eq(runs.id, run.id));
      expect(again?.name).toBe('survives-restart');
      // The first session's workers stopped cleanly; the new ones are running.
      const all = await waitFor('the new workers to register', async () => {
        const rows = await db.db.select().from(workers);
        return rows.length === 2 * kinds.length && rows;
      });
      expect(all.filter((w) => first.workerPids.includes(w.pid)).map((w) => w.status)).toEqual(kinds.map(() => 'stopped'));
      expect(all.filter((w) => second.workerPids.includes(w.pid)).map((w) => w.status)).toEqual(kinds.map(() => 'running'));
    } finally {
      await db.close();
    }
    await stop(second);
  }, 240_000);
});
