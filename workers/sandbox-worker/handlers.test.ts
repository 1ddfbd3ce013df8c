import { rmSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { jobs } from '@/db/schema';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { enqueue } from '@/server/queue';
import { freshDatabase } from '@/test/database';
import { runJobLoop } from '@/workers/jobs/job-loop';
import { JOB_QUEUES } from '@/core/queues';
import { sandboxHandlers } from './handlers';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { TEST_STORE, testDataDir, ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';
import { settings } from '@/core/settings';

describe('sandbox worker: sandbox.exec jobs through the real queue', () => {
  let database: Database;
  const stop = new AbortController();
  let loop: Promise<void>;
  let h: ReturnType<typeof sandboxHandlers>;
  let dataDir: string;
  beforeAll(async () => {
    database = await freshDatabase();
    ensureTestEnvironment();
    dataDir = testDataDir('handlers');
    // as the worker runs them: audited; on a host without gVisor, whatever this one has (runsc at a path that does not exist)
    const runtime = { ...runtimeOptions(settings()), runsc: '/nonexistent/crucible-test/runsc' };
    h = sandboxHandlers({ dataDir, storeDir: TEST_STORE, recordsFor: sandboxRecords, runtime });
    loop = runJobLoop({
      db: database.db,
      sql: database.sql,
      workerId: 'test-sandbox-worker',
      handlers: h.handlers,
      concurrency: 2,
      pollMs: 200,
      drainMs: 1000,
      signal: stop.signal,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    stop.abort();
    await loop;
    await h.manager()?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const finished = async (id: number) => {
    for (let i = 0; i < 300; i++) {
      const [j] = await database.db.select().from(jobs).where(eq(jobs.id, id));
      if (j && (j.state === 'done' || j.state === 'dead')) return j;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`job ${id} did not finish`);
  };

  it('runs the command in a sandbox and stores the exec result as the job result', async () => {
    const { id } = await enqueue(database.db, {
      queue: JOB_QUEUES.sandboxExec,
      payload: {
        cmd: ['python3', 'main.py'],
        limits: { memoryMb: 128, diskMb: 16 },
        files: [{ dest: 'main.py', contentBase64: Buffer.from('print(6*7)').toString('base64') }],
      },
    });
    const job = await finished(id);
    expect(job.state, job.lastError ?? '').toBe('done');
    expect(job.result).toMatchObject({ status: 'ok', exitCode: 0, stdout: '42\n', runtime: 'bwrap', envHash: expect.stringMatching(/^sha256:/) });
  });

  it("refuses to enqueue a payload its queue's schema (core/job-payloads.ts) refuses, naming the field", async () => {
    await expect(enqueue(database.db, { queue: JOB_QUEUES.sandboxExec, payload: { cmd: [] } })).rejects.toThrow(
      /bad sandbox\.exec payload: cmd: cmd needs at least the program/,
    );
    await expect(enqueue(database.db, { queue: JOB_QUEUES.sandboxExec, payload: { cmd: ['true'], extra: 1 } })).rejects.toThrow(/extra/);
  });

  it('dead-letters a job whose runtime is not installed or whose stored payload is invalid', async () => {
    const a = await enqueue(database.db, { queue: JOB_QUEUES.sandboxExec, payload: { cmd: ['true'], runtime: 'oci:runsc' } });
    // a payload stored before its schema changed (or by a writer that skipped enqueue): the job loop checks it again
    const [b] = await database.db
      .insert(jobs)
      .values({ queue: JOB_QUEUES.sandboxExec, payload: { cmd: [] } })
      .returning({ id: jobs.id });
    const [ja, jb] = [await finished(a.id), await finished(b!.id)];
    expect(ja.state).toBe('dead');
    expect(ja.lastError).toMatch(/gVisor/);
    expect(jb.state).toBe('dead');
    expect(jb.lastError).toMatch(/cmd/);
  });
});
