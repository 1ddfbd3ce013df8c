import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { alive, testHandlers, waitFor } from './jobs/fixtures/processes';
import { startSupervisor, tsProcess, type Supervisor, type SupervisorEvent } from './supervisor';

let database: Database;
let supervisor: Supervisor | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await supervisor?.stop();
});

const workerPids = async () =>
  ((await database.db.execute(sql`select pid, status from workers order by started_at`)) as unknown as { pid: number; status: string }[]);

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
        tsProcess('jobs', 'workers/jobs/main.ts', ['--handlers', testHandlers]),
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
    const second = await waitFor('a restarted job worker to register', async () =>
      (await workerPids()).find((w) => w.pid !== first && w.status === 'running')?.pid,
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
});
