import { sql } from 'drizzle-orm';
import { assert, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { runs } from '@/db/schema';
import { must } from '@/core/must';
import { claim, yieldPreempted } from '@/server/queue';
import { defaultRunConfig } from '@/core/run-config';
import { freshDatabase } from '@/test/database';
import { parseSchedulerConfig } from '@/lib/scheduler/config';
import { livePass } from '@/lib/scheduler/live';

// One live pass at a moderate scale, in process, on a real database: 200 nodes and 5,000
// pending jobs. Checks that what the pass writes respects every node's capacity and every
// queue's quota, and that a lost node's admissions are dropped; logs how long it took.

let database: Database;
const NODES = 200;
const JOBS = 5_000;
const config = parseSchedulerConfig({
  tiers: [
    { name: 'critical', rank: 2, useReserve: true },
    { name: 'standard', rank: 1 },
  ],
  queues: [{ name: 'standard', tier: 'standard', nominal: { cpu: 1_000 } }],
  reserveFraction: 0.3,
  leaseMs: 5_000,
  minRunTimeMs: 0,
});

beforeAll(async () => {
  database = await freshDatabase();
  // Nodes of 8 CPUs / 32 GB; one process row each, heartbeating now.
  await database.sql`
    insert into workers (id, kind, hostname, pid, capacity, node)
    select 'w' || i, 'jobs', 'h' || i, i, jsonb_build_object('cpus', 8, 'memoryMb', 32768, 'gpuCount', 0, 'gpuMemoryMb', 0, 'diskMb', 100000), 'node-' || i
    from generate_series(1, ${NODES}) i`;
  await database.sql`
    insert into jobs (queue, tier, request, priority, payload)
    select 'bulk', case when i % 10 = 0 then 'critical' else 'standard' end,
      jsonb_build_object('cpu', 1 + i % 3, 'memoryMb', 1024, 'gpu', 0, 'gpuMemoryMb', 0, 'diskMb', 0), 0, '{}'::jsonb
    from generate_series(1, ${JOBS}) i`;
});

describe('a live pass over the database', () => {
  it('admits within node capacity, quota and reserve, and drops the admissions of a lost node', async () => {
    const report = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    console.log(
      `live pass: ${JOBS} pending on ${NODES} nodes → ${report.applied.admitted} admitted; ` +
        `load ${report.ms.load.toFixed(0)} ms, decide ${report.ms.decide.toFixed(0)} ms, apply ${report.ms.apply.toFixed(0)} ms`,
    );
    expect(report.applied.admitted).toBeGreaterThan(500);
    expect(report.applied.skipped).toBe(0);
    const perNode = await database.sql<{ node: string; cpu: number }[]>`
      select admitted_node as node, sum((request->>'cpu')::float8)::float8 as cpu from jobs where admitted_node is not null group by 1`;
    for (const n of perNode) expect(n.cpu).toBeLessThanOrEqual(8);
    const [tiers] = await database.sql<{ standard: number; critical: number }[]>`
      select coalesce(sum((request->>'cpu')::float8) filter (where tier = 'standard'), 0)::float8 as standard,
        coalesce(sum((request->>'cpu')::float8) filter (where tier = 'critical'), 0)::float8 as critical
      from jobs where admitted_node is not null`;
    assert(tiers !== undefined, 'no row found');
    // Standard: its 1,000-CPU quota, and never the reserve (30% of 1,600 CPUs).
    expect(tiers.standard).toBeLessThanOrEqual(Math.min(1_000, 0.7 * NODES * 8));
    expect(tiers.critical).toBeGreaterThan(0);

    // A second pass changes nothing it already decided (compare-and-set on admitted rows).
    const again = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    expect(again.applied.preempted).toBe(0);
    expect(again.applied.requeued).toBe(0);

    // node-1 goes silent past the lease: its admissions (claimed or not) go back to the queue.
    const [{ n: onNode1 } = { n: 0 }] = await database.sql<{ n: number }[]>`select count(*)::int as n from jobs where admitted_node = 'node-1'`;
    expect(onNode1).toBeGreaterThan(0);
    await database.db.execute(sql`update workers set heartbeat_at = now() - interval '1 minute' where node = 'node-1'`);
    const lost = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    expect(lost.applied.requeued).toBe(onNode1);
    const back = await database.sql<{ reason: string; node: string | null }[]>`
      select last_requeue_reason as reason, admitted_node as node from jobs where last_requeue_reason like 'node-lost%'`;
    expect(back).toHaveLength(onNode1);
    expect(back[0]?.reason).toMatch(/^node-lost: node node-1 sent no heartbeat for \d+ s \(lease 5 s\)/);
    // …and are placed on live nodes (not node-1) by the same or the next pass.
    await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    const [{ n: still } = { n: 0 }] = await database.sql<{ n: number }[]>`select count(*)::int as n from jobs where admitted_node = 'node-1'`;
    expect(still).toBe(0);
  });

  it("records a preemption on the victim's row and its run's events; the preemptor starts once the victim is handed back", async () => {
    await database.sql`delete from jobs`;
    await database.sql`delete from workers`;
    await database.sql`insert into workers (id, kind, hostname, pid, capacity, node) values ('solo-w', 'jobs', 'h', 1, '{"cpus": 2, "memoryMb": 4096, "gpuCount": 0, "gpuMemoryMb": 0, "diskMb": 0}'::jsonb, 'solo')`;
    const [run] = await database.db.insert(runs).values({ name: 'preempted-run', config: defaultRunConfig }).returning();
    assert(run !== undefined, 'no row found');
    const victims = await database.sql<{ id: string; lease_token: string }[]>`
      insert into jobs (queue, tier, request, run_id, state, admitted_node, admitted_at, started_at, lease_token, lease_expires_at, attempts)
      select 'bulk', 'standard', '{"cpu": 1}'::jsonb, ${run.id}, 'running', 'solo', now() - interval '1 minute', now() - make_interval(secs => 60 - i),
        gen_random_uuid(), now() + interval '1 minute', 1
      from generate_series(1, 2) i returning id::text, lease_token`;
    const [critical] = await database.sql<
      { id: string }[]
    >`insert into jobs (queue, tier, request) values ('urgent', 'critical', '{"cpu": 1}'::jsonb) returning id::text`;
    assert(critical !== undefined, 'no row found');
    const report = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    expect(report.applied).toMatchObject({ admitted: 1, preempted: 1 });
    const [victim] = await database.sql<{ id: string; reason: string; backoff_ms: number; preempted_by: string }[]>`
      select id::text, last_requeue_reason as reason, preempted_by::text, (extract(epoch from run_after - now()) * 1000)::float8 as backoff_ms
      from jobs where preempted_at is not null`;
    assert(victim !== undefined, 'no row found');
    // The newest of the two (started 58 s ago, not 59 s).
    expect(victim.id).toBe(victims[1]?.id);
    expect(victim.preempted_by).toBe(critical.id);
    expect(victim.reason).toMatch(new RegExp(`^priority: preempted by ${critical.id} \\(critical, priority 0\\) of higher priority`));
    expect(victim.backoff_ms).toBeGreaterThan(3_000); // base 5 s backoff before it may be admitted again
    const events = await database.sql<
      { type: string; message: string; actor: string }[]
    >`select type, message, actor from run_events where run_id = ${run.id} and type = 'job.preempted'`;
    expect(events).toEqual([{ type: 'job.preempted', actor: 'system:scheduler', message: `job ${victim.id} ${victim.reason}` }]);

    // Admitted to the victim's node, but not claimable until the victim stopped.
    const claimIt = () => claim(database.db, { queues: ['urgent'], owner: 'solo-w', leaseMs: 5_000, node: 'solo', only: 'admitted' });
    expect(await claimIt()).toEqual([]);
    // A pass meanwhile evicts nothing more: the victim's share is already the preemptor's.
    expect((await livePass(database.db, () => config, { evictGraceMs: 30_000 })).applied.preempted).toBe(0);
    expect(await yieldPreempted(database.db, Number(victim.id), must(victims[1], 'the newer running victim').lease_token)).toBe(true);
    expect((await claimIt()).map((j) => String(j.id))).toEqual([critical.id]);
  });
});
