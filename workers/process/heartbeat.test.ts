import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { workers } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { workerHeartbeat } from './heartbeat';
import { LOG_RING_LINES, LogRing } from './log-ring';
import { markWorkerStopped, registerWorker } from './registration';

const capacity = { cpus: 2, memoryMb: 4096, gpuCount: 0, gpuMemoryMb: 0, diskMb: 10_000, runtimes: [] };

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const row = async (id: string) => (await database.db.select().from(workers).where(eq(workers.id, id)))[0]!;

describe("a worker's heartbeat", () => {
  it('stores its own CPU and memory and its newest log lines, cleaned and bounded', async () => {
    const id = await registerWorker(database.db, 'jobs', capacity);
    expect(await row(id)).toMatchObject({ cpuPercent: null, rssMb: null, recentLogs: [] });
    const ring = new LogRing();
    for (let i = 0; i < LOG_RING_LINES + 20; i++) ring.push(`job ${i} done`);
    ring.push('a NUL \u0000 and a bell \u0007 and \u001b[1mbold\u001b[0m');
    let stats = { cpuPercent: 12.5, rssMb: 210.3 };
    const beat = workerHeartbeat({ db: database.db, workerId: id, ring, sample: () => stats });
    expect(await beat()).toBe(true);
    const r = await row(id);
    expect(r).toMatchObject({ cpuPercent: 12.5, rssMb: 210.3 });
    expect(r.recentLogs).toHaveLength(LOG_RING_LINES);
    expect(r.recentLogs.at(-1)!.line).toBe('a NUL  and a bell  and bold');
    expect(r.recentLogs[0]!.line).toBe('job 21 done');
    expect(Number.isNaN(Date.parse(r.recentLogs[0]!.at))).toBe(false);

    // A beat with no new line leaves the stored lines alone (here: blanked behind its back)…
    await database.db.execute(sql`update workers set recent_logs = '[]'::jsonb where id = ${id}`);
    stats = { cpuPercent: 80, rssMb: 250 };
    await beat();
    expect(await row(id)).toMatchObject({ cpuPercent: 80, rssMb: 250, recentLogs: [] });
    // …and the next line is written with the whole ring.
    ring.push('claimed job 99');
    await beat();
    const after = await row(id);
    expect(after.recentLogs).toHaveLength(LOG_RING_LINES);
    expect(after.recentLogs.at(-1)!.line).toBe('claimed job 99');
  });

  it('keeps the last lines when the worker stops, and a stopped worker is not revived', async () => {
    const id = await registerWorker(database.db, 'jobs', capacity);
    const ring = new LogRing();
    ring.push('failed: Error: boom\n    at main (worker.ts:1:1)');
    await markWorkerStopped(database.db, id, 'failed', ring.snapshot());
    const beat = workerHeartbeat({ db: database.db, workerId: id, ring, sample: () => ({ cpuPercent: 1, rssMb: 1 }) });
    expect(await beat()).toBe(false);
    const r = await row(id);
    expect(r.status).toBe('failed');
    expect(r.recentLogs.map((l) => l.line)).toEqual(['failed: Error: boom', '    at main (worker.ts:1:1)']);
  });
});
