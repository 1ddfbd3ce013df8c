import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { jobs } from '@/db/schema';
import { must } from '@/core/must';
import { enqueue } from '@/server/queue';
import { freshDatabase, ownerConnection } from '@/test/database';
import { markLostWorkers } from '@/workers/process/registration';
import type { JobHandler } from './job-handler';
import { runJobLoop } from './job-loop';
import { alive, startTs, testHandlers, waitFor, type Proc } from './fixtures/processes';

let database: Database;
const procs: Proc[] = [];
const LEASE_MS = 1_500;

beforeAll(async () => {
  database = await freshDatabase();
  // Scratch tables are created by the schema owner (the app role may not create tables).
  const owner = ownerConnection(database);
  await owner.sql`create table job_starts (job_id bigint not null, pid int not null, attempt int not null, at timestamptz not null default clock_timestamp())`;
  await owner.sql`create table effects (job_id bigint primary key, pid int not null)`;
  await owner.sql`create table counters (name text primary key, n int not null)`;
  await database.sql`insert into counters values ('jobs', 0)`;
});

afterAll(async () => {
  for (const p of procs) if (alive(p.pid)) p.child.kill('SIGKILL');
});

const worker = (extra: string[] = []) => {
  const p = startTs('workers/job-worker/main.ts', ['--handlers', testHandlers, '--concurrency', '2', '--poll-ms', '500', ...extra], {
    DATABASE_URL: database.url,
    CRUCIBLE_TEST_LEASE_MS: String(LEASE_MS),
    CRUCIBLE_WORKER_HEARTBEAT_MS: '300',
  });
  procs.push(p);
  return p;
};

const rows = async <T>(q: ReturnType<typeof sql>) => (await database.db.execute(q)) as unknown as T[];

describe('job workers (real processes)', () => {
  it('re-claims the job of a kill -9ed worker after its lease expires and applies every effect exactly once', async () => {
    const [a, b] = [worker(), worker()];
    // Both register, with this node's capacity.
    const registered = await waitFor('both workers to register', async () => {
      const r = await rows<{ pid: number; kind: string; status: string; capacity: Record<string, number> }>(
        sql`select pid, kind, status, capacity from workers where pid in (${a.pid}, ${b.pid})`,
      );
      return r.length === 2 && r;
    });
    for (const w of registered) {
      expect(w).toMatchObject({ kind: 'jobs', status: 'running' });
      expect(w.capacity.cpus).toBeGreaterThan(0);
      expect(w.capacity.memoryMb).toBeGreaterThan(0);
      expect(w.capacity).toHaveProperty('gpuCount');
    }

    const N = 12;
    const ids: number[] = [];
    for (let i = 0; i < N; i++) ids.push((await enqueue(database.db, { queue: 'test.counter', payload: { sleepMs: 600 } })).id);

    // Wait until A is mid-job (started, effect not applied), then kill -9 it.
    const victim = await waitFor('worker A to be mid-job', async () => {
      const r = await rows<{ job_id: number }>(
        // Started under 250 ms ago, so at least 350 ms of its 600 ms of work are left.
        sql`select s.job_id from job_starts s left join effects e using (job_id)
            where s.pid = ${a.pid} and e.job_id is null and s.at > clock_timestamp() - interval '250 milliseconds' limit 1`,
      );
      return r[0]?.job_id;
    });
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    await a.exited;

    await waitFor(
      'all jobs to be done',
      async () => {
        const [r] = await rows<{ n: number }>(sql`select count(*)::int as n from jobs where queue = 'test.counter' and state = 'done'`);
        return r?.n === N;
      },
      30_000,
      100,
    );

    // Exactly once: the counter equals the number of jobs and each job has one effect row.
    const [counter] = await rows<{ n: number }>(sql`select n from counters where name = 'jobs'`);
    expect(counter?.n).toBe(N);
    const effects = await rows<{ job_id: number; pid: number }>(sql`select job_id::int, pid from effects order by job_id`);
    expect(effects.map((e) => e.job_id)).toEqual(ids);

    // The victim job was started by A, then re-claimed by B only after A's lease ran out.
    const starts = await rows<{ pid: number; attempt: number; at: Date }>(sql`select pid, attempt, at from job_starts where job_id = ${victim} order by at`);
    expect(starts.map((s) => [s.pid, s.attempt])).toEqual([
      [a.pid, 1],
      [b.pid, 2],
    ]);
    const reclaimDelay = new Date(must(starts[1], 'the re-claimed start of the victim').at).getTime() - killedAt;
    expect(reclaimDelay).toBeGreaterThan(0);
    // Lease expiry plus a poll interval and a busy slot; generous for loaded CI machines.
    expect(reclaimDelay).toBeLessThan(LEASE_MS + 5_000);
    expect(effects.find((e) => e.job_id === Number(victim))!.pid).toBe(b.pid);
    const [vj] = await rows<{ attempts: number; state: string }>(sql`select attempts, state from jobs where id = ${victim}`);
    expect(vj).toEqual({ attempts: 2, state: 'done' });
    console.log(`victim job ${victim}: re-claimed ${reclaimDelay} ms after kill -9 (lease ${LEASE_MS} ms)`);

    // A's registration stopped heartbeating: maintenance marks it lost, B stays running.
    const lost = await waitFor('A to be marked lost', async () => (await markLostWorkers(database.db, 1_000)).find((w) => w.pid === a.pid), 5_000, 200);
    expect(lost.pid).toBe(a.pid);
    const [bRow] = await rows<{ status: string }>(sql`select status from workers where pid = ${b.pid}`);
    expect(bRow?.status).toBe('running');

    // A failing handler: retried with backoff, then dead-lettered with its last error.
    const { id: broken } = await enqueue(database.db, { queue: 'test.broken', maxAttempts: 3 });
    const dead = await waitFor(
      'the broken job to be dead',
      async () => {
        const [r] = await rows<{ state: string; attempts: number; last_error: string }>(sql`select state, attempts, last_error from jobs where id = ${broken}`);
        return r?.state === 'dead' && r;
      },
      10_000,
      100,
    );
    expect(dead.attempts).toBe(3);
    expect(dead.last_error).toContain('broken on attempt 3');

    // Clean stop: exit 0, registration marked stopped.
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    const [stopped] = await rows<{ status: string; stopped_at: Date | null }>(sql`select status, stopped_at from workers where pid = ${b.pid}`);
    assert(stopped !== undefined, `no workers row for B (pid ${b.pid})`);
    expect(stopped.status).toBe('stopped');
    expect(stopped.stopped_at).not.toBeNull();
  });

  it('on SIGTERM mid-job, releases the lease so another worker takes the job at once, uncounted', async () => {
    const c = worker(['--drain-ms', '300']);
    await waitFor('worker C to register', async () => (await rows(sql`select 1 from workers where pid = ${c.pid}`)).length > 0);
    const { id } = await enqueue(database.db, { queue: 'test.counter', payload: { sleepMs: 60_000 } });
    await waitFor('C to start the long job', async () => (await rows(sql`select 1 from job_starts where job_id = ${id}`)).length > 0);
    c.child.kill('SIGTERM');
    expect(await c.exited).toBe(0);
    const [job] = await rows<{ state: string; attempts: number; lease_token: string | null }>(
      sql`select state, attempts, lease_token from jobs where id = ${id}`,
    );
    expect(job).toEqual({ state: 'queued', attempts: 0, lease_token: null });
    expect(c.output()).toContain('releasing 1 unfinished job');
  }, 30_000);
});

describe('job payloads (validated by the job loop)', () => {
  it("a payload that does not fit its kind's schema dead-letters at once, naming the kind and the field; a good one reaches the handler parsed", async () => {
    const seen: unknown[] = [];
    const handler: JobHandler = {
      queue: 'test.typed',
      payload: z.object({ runId: z.uuid(), iteration: z.number().int().nonnegative() }),
      async run(job) {
        seen.push(job.payload);
      },
    };
    const ac = new AbortController();
    const loop = runJobLoop({
      db: database.db,
      sql: database.sql,
      workerId: 'payload-test',
      handlers: [handler],
      concurrency: 1,
      pollMs: 100,
      drainMs: 500,
      signal: ac.signal,
      log: () => {},
    });
    try {
      const runId = '6f1c2a9e-0d4b-4c8e-9a8f-3b5d7e1f2a3c';
      const bad = await enqueue(database.db, { queue: 'test.typed', payload: { runId, iteration: 'one' }, maxAttempts: 5 });
      const good = await enqueue(database.db, { queue: 'test.typed', payload: { runId, iteration: 2, extra: true } });
      const settled = (id: number) =>
        waitFor(`job ${id} to settle`, async () => {
          const [j] = await database.db.select().from(jobs).where(eq(jobs.id, id));
          return j && (j.state === 'done' || j.state === 'dead') && j;
        });
      const b = await settled(bad.id);
      expect(b.state).toBe('dead');
      expect(b.attempts).toBe(1); // permanent: not retried
      expect(b.lastError).toMatch(/bad test\.typed payload/);
      expect(b.lastError).toMatch(/iteration: /);
      expect((await settled(good.id)).state).toBe('done');
      // the handler never saw the bad payload, and saw the good one as its schema parsed it
      expect(seen).toEqual([{ runId, iteration: 2 }]);
    } finally {
      ac.abort();
      await loop;
    }
  });
});
