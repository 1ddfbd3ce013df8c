import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { parseSchedulerConfig } from './config';
import { livePass } from './live';

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
    // Standard: its 1,000-CPU quota, and never the reserve (30% of 1,600 CPUs).
    expect(tiers.standard).toBeLessThanOrEqual(Math.min(1_000, 0.7 * NODES * 8));
    expect(tiers.critical).toBeGreaterThan(0);

    // A second pass changes nothing it already decided (compare-and-set on admitted rows).
    const again = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    expect(again.applied.preempted).toBe(0);
    expect(again.applied.requeued).toBe(0);

    // node-1 goes silent past the lease: its admissions (claimed or not) go back to the queue.
    const [{ n: onNode1 }] = await database.sql<{ n: number }[]>`select count(*)::int as n from jobs where admitted_node = 'node-1'`;
    expect(onNode1).toBeGreaterThan(0);
    await database.db.execute(sql`update workers set heartbeat_at = now() - interval '1 minute' where node = 'node-1'`);
    const lost = await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    expect(lost.applied.requeued).toBe(onNode1);
    const back = await database.sql<{ reason: string; node: string | null }[]>`
      select last_requeue_reason as reason, admitted_node as node from jobs where last_requeue_reason like 'node-lost%'`;
    expect(back).toHaveLength(onNode1);
    expect(back[0].reason).toMatch(/^node-lost: node node-1 sent no heartbeat for \d+ s \(lease 5 s\)/);
    // …and are placed on live nodes (not node-1) by the same or the next pass.
    await livePass(database.db, () => config, { evictGraceMs: 30_000 });
    const [{ n: still }] = await database.sql<{ n: number }[]>`select count(*)::int as n from jobs where admitted_node = 'node-1'`;
    expect(still).toBe(0);
  });
});
