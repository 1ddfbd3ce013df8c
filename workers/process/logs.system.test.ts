import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { logRecords, workers } from '@/db/schema';
import { enqueue } from '@/server/queue';
import { freshDatabase } from '@/test/database';
import { startTs, testHandlers, waitFor, type Proc } from '@/workers/jobs/fixtures/processes';

let database: Database;
let worker: Proc | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => {
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
});

describe("a real worker process's logs", () => {
  it('are JSON lines on stdout and arrive in log_records with host, worker, job, run and episode ids; the last ones on stop', async () => {
    const { db } = database;
    worker = startTs('workers/job-worker/main.ts', ['--handlers', testHandlers, '--poll-ms', '100'], {
      DATABASE_URL: database.url,
      DATABASE_OWNER_URL: undefined,
      CRUCIBLE_NODE: 'node-logs',
      CRUCIBLE_LOG_FLUSH_MS: '200',
      CRUCIBLE_TEST_LEASE_MS: '3000',
      CRUCIBLE_WORKER_HEARTBEAT_MS: '300',
    });
    const w = worker;
    const registered = await waitFor('the worker to register', async () => (await db.select().from(workers).where(eq(workers.pid, w.pid)))[0], 30_000);
    const workerId = registered.id;
    const runId = randomUUID();
    const episodeId = randomUUID();
    const { id: jobId } = await enqueue(db, { queue: 'test.logs', payload: { runId, episodeId } });
    const jobRecords = () => db.select().from(logRecords).where(eq(logRecords.jobId, jobId)).orderBy(logRecords.id);
    await waitFor(
      `job ${jobId}'s finished record`,
      async () => (await jobRecords()).some((r) => r.msg.startsWith(`job ${jobId} finished: test.logs in `)),
      30_000,
    );

    const records = await jobRecords();
    // every record of the job names this host, process, worker, the job, and the payload's run and episode
    for (const r of records) expect(r).toMatchObject({ host: 'node-logs', process: 'jobs', pid: w.pid, workerId, jobId, runId, episodeId });
    const msgs = records.map((r) => r.msg);
    expect(msgs[0]).toBe(`job ${jobId} claimed: test.logs (attempt 1/5, run ${runId})`);
    expect(msgs).toContain('handler says hello on attempt 1');
    expect(msgs).toContain('handler says hello on attempt 2');
    expect(msgs).not.toContain('below the ship level');
    const failed = records.find((r) => r.msg.startsWith(`job ${jobId} failed: test.logs after `) && r.msg.includes(`run ${runId} (attempt 1/5) → retry`))!;
    expect(failed).toMatchObject({ level: 'warn', fields: { outcome: 'retry', error: 'first attempt fails', queue: 'test.logs' } });
    expect(records.find((r) => r.msg === 'handler says hello on attempt 2')!.fields).toMatchObject({ tool: 'bash', durationMs: 7, exitCode: 0 });
    // the process's own lines: registration (with its worker id)
    const [reg] = await db
      .select()
      .from(logRecords)
      .where(eq(logRecords.msg, `registered as ${workerId}`));
    expect(reg).toMatchObject({ level: 'info', host: 'node-logs', process: 'jobs', workerId });

    // stdout: JSON lines with the same fields, for the supervisor and any log collector
    const lines = w.output().trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.find((o) => o.msg === 'handler says hello on attempt 2')).toMatchObject({
      level: 'info',
      host: 'node-logs',
      process: 'jobs',
      workerId,
      job: jobId,
      run: runId,
      episode: episodeId,
    });

    // its heartbeat reports the CPU its jobs used per phase (what tells the learner's share of the node): this queue's is "other"
    const phases = await waitFor(
      'the heartbeat to report CPU per phase',
      async () => {
        const [r] = await db.select({ p: workers.cpuPhaseSeconds }).from(workers).where(eq(workers.id, workerId));
        return (r?.p.other ?? 0) > 0 && r!.p;
      },
      10_000,
    );
    expect(Object.keys(phases)).toEqual(['other']);

    // stop: the last records are shipped before the process exits
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    // the worker's own ring (its /workers page) keeps the job's lifecycle: claimed, failed, claimed again, finished
    const [row] = await db.select({ recentLogs: workers.recentLogs }).from(workers).where(eq(workers.id, workerId));
    const ring = row!.recentLogs.map((l) => l.line).filter((l) => l.startsWith(`job ${jobId} `) || l.startsWith(`warn: job ${jobId} `));
    expect(ring.map((l) => /^(?:warn: )?job \d+ (\w+):/.exec(l)?.[1])).toEqual(['claimed', 'failed', 'claimed', 'finished']);
    expect(ring.every((l) => l.includes(`run ${runId}`))).toBe(true);
    const last = await db.select().from(logRecords).where(eq(logRecords.workerId, workerId)).orderBy(logRecords.id);
    expect(last.map((r) => r.msg).slice(-2)).toEqual(['SIGTERM: stopping', 'stopped']);
  });
});
