import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { assert, afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { enqueue } from '@/server/queue';
import { createRun } from '@/server/runs/service';
import { freshDatabase } from '@/test/database';
import { alive, startTs, waitFor, type Proc } from '@/workers/jobs/fixtures/processes';
import { ensureTestEnvironment, TEST_STORE } from '@/lib/sandbox/sandbox.testkit';
import { DEFAULT_TIERS } from '@/lib/scheduler/config';

// A real RL episode preempted by the live scheduler: a scheduler process and a job worker
// with the default handlers (rl.advance / rl.episode / rl.learn, bwrap sandboxes, ONNX policy)
// as a 1-CPU node. A best-effort run fills it with two 0.5-CPU episodes; a critical workload
// evicts one mid-episode. The evicted episode runs again later and gets exactly one reward.

let database: Database;
const procs: Proc[] = [];
const dataDir = mkdtempSync(path.join('/tmp', 'crucible-rl-preempt-'));
chmodSync(dataDir, 0o755);
const rows = async <T>(q: ReturnType<typeof sql>) => (await database.db.execute(q)) as unknown as T[];

beforeAll(async () => {
  ensureTestEnvironment();
  database = await freshDatabase();
  const common = { DATABASE_URL: database.url, CRUCIBLE_WORKER_HEARTBEAT_MS: '300', CRUCIBLE_DATA_DIR: dataDir };
  procs.push(
    startTs('workers/scheduler-worker/main.ts', [], {
      ...common,
      CRUCIBLE_SCHEDULER_CONFIG: JSON.stringify({
        tiers: DEFAULT_TIERS,
        reserveFraction: 0,
        leaseMs: 10_000,
        minRunTimeMs: 0,
        backoff: { baseMs: 200, maxMs: 1_000 },
      }),
    }),
    startTs('workers/job-worker/main.ts', ['--poll-ms', '500'], {
      ...common,
      CRUCIBLE_ENV_STORE: TEST_STORE,
      CRUCIBLE_RL_SFT_STEPS: '0',
      CRUCIBLE_RL_HELDOUT_LIMIT: '1',
      CRUCIBLE_NODE: 'rl-node',
      CRUCIBLE_NODE_CPUS: '1',
    }),
  );
}, 60_000);

afterAll(async () => {
  // SIGTERM first: the worker destroys its sandboxes (and unmounts their scratch) on a clean stop.
  for (const p of procs) if (alive(p.pid)) p.child.kill('SIGTERM');
  const stopped = await Promise.race([Promise.all(procs.map((p) => p.exited)).then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
  if (!stopped) for (const p of procs) if (alive(p.pid)) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  try {
    rmSync(dataDir, { recursive: true, force: true });
  } catch (e) {
    console.warn(`left ${dataDir} behind: ${(e as Error).message}`);
  }
}, 30_000);

describe('live scheduler × RL episodes (real processes)', () => {
  it('preempts a running episode for critical work; the episode re-runs and gets exactly one reward', async () => {
    const run = await createRun(
      database.db,
      {
        name: 'preempted',
        config: {
          queue: 'best-effort',
          seed: 3,
          iterations: 1,
          tasksPerIteration: 2,
          groupSize: 2,
          maxTurns: 2,
          concurrency: 2,
          learningRate: 1e-3,
          klCoef: 0,
        },
      },
      'test',
    );
    await waitFor(
      'two episodes running on the 1-CPU node',
      async () => {
        const [r] = await rows<{ n: number }>(
          sql`select count(*)::int as n from jobs where queue = 'rl.episode' and state = 'running' and admitted_node = 'rl-node'`,
        );
        assert(r !== undefined, 'no row found');
        return r.n === 2;
      },
      120_000,
      100,
    );

    // Critical work nobody serves (queue test.hold): it only needs the capacity, so it evicts an episode.
    const { id: hold } = await enqueue(database.db, { queue: 'test.hold', workload: { tier: 'critical', request: { cpu: 0.5 } } });
    const [admitted] = await waitFor(
      'the critical workload to be admitted',
      async () => {
        const r = await rows<{ ms: number }>(
          sql`select (extract(epoch from admitted_at - created_at) * 1000)::float8 as ms from jobs where id = ${hold} and admitted_node is not null`,
        );
        return r.length ? r : undefined;
      },
      10_000,
      20,
    );
    assert(admitted !== undefined, 'the critical workload has no admitted row');
    const victim = await waitFor(
      'an episode to be stopped and re-queued',
      async () => {
        const [r] = await rows<{ id: number; episode: string; reason: string }>(sql`
        select id::int, payload->>'episodeId' as episode, last_requeue_reason as reason from jobs
        where queue = 'rl.episode' and preemptions > 0 and preempted_at is null`);
        return r;
      },
      30_000,
      50,
    );
    console.log(`critical over RL episodes: admitted in ${admitted.ms.toFixed(0)} ms; episode job ${victim.id} preempted`);
    expect(admitted.ms).toBeLessThan(2_000);
    expect(victim.reason).toMatch(new RegExp(`^priority: preempted by ${hold} \\(critical`));
    const events = await rows<{ message: string }>(sql`select message from run_events where run_id = ${run.id} and type = 'job.preempted'`);
    expect(events.map((e) => e.message)).toContain(`job ${victim.id} ${victim.reason}`);

    // The critical work is withdrawn; the run finishes, the victim included.
    await database.db.execute(sql`update jobs set state = 'cancelled' where id = ${hold}`);
    await waitFor(
      'the victim episode job to be done',
      async () => {
        const [r] = await rows<{ state: string }>(sql`select state::text from jobs where id = ${victim.id}`);
        assert(r !== undefined, 'no row found');
        return r.state === 'done';
      },
      120_000,
      200,
    );
    const [ep] = await rows<{ status: string; rewards: number }>(sql`
      select e.status, (select count(*)::int from rewards r where r.episode_id = e.id) as rewards from episodes e where e.id = ${victim.episode}`);
    expect(ep).toEqual({ status: 'scored', rewards: 1 });
    const [starts] = await rows<{ attempts: number }>(sql`select attempts from jobs where id = ${victim.id}`);
    assert(starts !== undefined, 'no row found');
    expect(starts.attempts).toBe(1); // the preempted attempt was not counted
    const dup = await rows(sql`select episode_id from rewards group by episode_id having count(*) > 1`);
    expect(dup).toEqual([]);
  }, 240_000);
});
