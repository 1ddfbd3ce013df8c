import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_QUEUES } from '@/core/queues';
import type { Database } from '@/db/client';
import { environments, jobs } from '@/db/schema';
import { enqueue } from '@/server/queue';
import { freshDatabase } from '@/test/database';
import { alive, testHandlers, waitFor } from './jobs/fixtures/processes';
import { ensureTestEnvironment, TEST_STORE, testDataDir } from '@/lib/sandbox/sandbox.testkit';
import { defaultWorkerSpecs, startSupervisor, tsProcess, type Supervisor, type SupervisorEvent } from './supervisor';

let database: Database;
let supervisor: Supervisor | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await supervisor?.stop();
});

const workerPids = async () =>
  (await database.db.execute(sql`select pid, status from workers order by started_at`)) as unknown as { pid: number; status: string }[];

describe('supervisor', () => {
  it('runs workers as processes, restarts crashed ones with backoff, and stops everything (SIGKILL after grace)', async () => {
    const events: SupervisorEvent[] = [];
    const lines: string[] = [];
    // A stubborn child that ignores SIGTERM and has a grandchild of its own.
    const stubborn = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log('grandchild ' + g.pid);
      process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
      setInterval(() => {}, 1000);`;
    supervisor = startSupervisor({
      specs: [
        tsProcess('jobs', 'workers/job-worker/main.ts', ['--handlers', testHandlers]),
        { name: 'crashy', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        { name: 'stubborn', command: process.execPath, args: ['-e', stubborn] },
      ],
      env: { DATABASE_URL: database.url },
      graceMs: 700,
      restart: { baseMs: 100, maxMs: 1_000 },
      log: (l) => lines.push(l),
      onEvent: (e) => events.push(e),
    });
    const pidOf = (name: string) => supervisor!.status().find((s) => s.name === name)!.pid;

    const first = pidOf('jobs')!;
    await waitFor('the job worker to register', async () => (await workerPids()).some((w) => w.pid === first && w.status === 'running'));
    process.kill(first, 'SIGKILL');
    const second = await waitFor(
      'a restarted job worker to register',
      async () => (await workerPids()).find((w) => w.pid !== first && w.status === 'running')?.pid,
    );
    expect(second).toBe(pidOf('jobs'));
    expect(supervisor.status().find((s) => s.name === 'jobs')!.restarts).toBe(1);
    expect(lines.some((l) => l.startsWith('[jobs] ') && l.includes('registered as'))).toBe(true);

    // A child that keeps crashing is restarted with growing delays.
    await waitFor('crashy to be restarted 4 times', async () => events.filter((e) => e.type === 'restart-scheduled' && e.name === 'crashy').length >= 4);
    const delays = events.flatMap((e) => (e.type === 'restart-scheduled' && e.name === 'crashy' ? [e.delayMs] : []));
    expect(delays.slice(0, 4)).toEqual([100, 200, 400, 800]);

    const grandchild = Number(/grandchild (\d+)/.exec(await waitFor('stubborn to start', async () => lines.find((l) => l.includes('grandchild'))))![1]);
    const stubbornPid = pidOf('stubborn')!;
    const started = Date.now();
    await supervisor.stop();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(5_000);
    expect(lines.some((l) => l.includes('stubborn') && l.includes('SIGKILL'))).toBe(true);
    for (const pid of [first, second, stubbornPid, grandchild]) expect(alive(pid), `pid ${pid} still running`).toBe(false);
    expect(supervisor.status().every((s) => s.pid === undefined)).toBe(true);
    // The job worker shut down cleanly, so its registration says stopped; the killed one does not.
    const rows = await workerPids();
    expect(rows.find((w) => w.pid === second)!.status).toBe('stopped');
    expect(rows.find((w) => w.pid === first)!.status).toBe('running');
    // No restart is scheduled after stop.
    const before = events.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(events.slice(before).filter((e) => e.type === 'spawn')).toEqual([]);
  });

  it('a default deployment consumes sandbox.exec jobs and re-hashes environments on schedule', async () => {
    await supervisor?.stop();
    ensureTestEnvironment();
    const lines: string[] = [];
    supervisor = startSupervisor({
      specs: defaultWorkerSpecs(),
      env: { DATABASE_URL: database.url, CRUCIBLE_DATA_DIR: testDataDir('supervisor'), CRUCIBLE_ENV_STORE: TEST_STORE, CRUCIBLE_ENV_VERIFY_MS: '1000' },
      log: (l) => lines.push(l),
    });
    const { id } = await enqueue(database.db, { queue: JOB_QUEUES.sandboxExec, payload: { cmd: ['python3', '-c', 'print(6*7)'] } });
    const job = await waitFor(
      'the sandbox.exec job to finish',
      async () => {
        const [j] = await database.db.select().from(jobs).where(eq(jobs.id, id));
        return j && (j.state === 'done' || j.state === 'dead') && j;
      },
      90_000,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; worker output: ${lines.slice(-20).join(' | ')}`);
    });
    expect(job.state, job.lastError ?? '').toBe('done');
    expect(job.result).toMatchObject({ exitCode: 0, stdout: '42\n' });
    // the environment the job ran in was recorded; the schedule then re-hashes and stamps it
    const verified = await waitFor(
      'the scheduled re-hash to record a verification',
      async () => {
        const rows = await database.db.select().from(environments).where(eq(environments.name, 'default'));
        return rows.find((r) => r.lastVerifiedAt);
      },
      60_000,
      200,
    );
    expect(verified.quarantinedAt).toBeNull();
    await supervisor.stop();
  }, 180_000);
});
