import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { sampleCluster, sampleNode, storeSamples } from '@/workers/metrics/sampler';
import { defaultConfig } from '@/lib/scheduler/config';
import { schedule } from '@/lib/scheduler/core';
import type { LiveState } from '@/lib/scheduler/live';
import { schedulerSamples, storeSchedulerSamples } from '@/lib/scheduler/samples';
import { prometheusText } from './prometheus';
import { resourceOverview, resourceSeries, sourceForWindow } from './service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

describe('resources service and Prometheus output', () => {
  it('reports no sampler when nothing was sampled', async () => {
    const o = await resourceOverview(database.db);
    expect(o.samplerRunning).toBe(false);
    expect(o.quota.status).toBe('no scheduler running');
  });

  it('builds the overview from real samples and renders Prometheus text', async () => {
    await database.db.execute(sql`insert into jobs (queue, state) values ('rollout', 'queued')`);
    const state = {};
    sampleNode(state, () => null, 'nodeA');
    await new Promise((r) => setTimeout(r, 50));
    await storeSamples(database.db, [...sampleNode(state, () => null, 'nodeA'), ...(await sampleCluster(database.db, 0.3))]);
    const o = await resourceOverview(database.db);
    expect(o.samplerRunning).toBe(true);
    expect(o.nodes).toHaveLength(1);
    expect(o.nodes[0]).toMatchObject({ node: 'nodeA', gpuPresent: false, gpus: [] });
    expect(o.nodes[0]!.memoryTotalMb).toBeGreaterThan(0);
    expect(o.tiers).toEqual([{ tier: 'standard', queued: 1, admitted: 0, queues: [{ queue: 'rollout', queued: 1, running: 0 }] }]);
    const { text, contentType } = await prometheusText(o);
    expect(contentType).toContain('text/plain');
    expect(text).toContain('# TYPE crucible_node_cpu_utilisation gauge');
    expect(text).toContain('crucible_node_gpu_present{node="nodeA"} 0');
    expect(text).toContain('crucible_queue_depth{tier="standard",queue="rollout"} 1');
    expect(text).toMatch(/^crucible_metrics_sampler_up 1$/m);
    const s = await resourceSeries(database.db, { window: '15m', names: ['node_memory_used_mb'] });
    expect(s.points.length).toBe(1);
  });

  it("shows the live scheduler's admitted/queued per tier and quota used vs borrowed from its samples", async () => {
    const r = (cpu: number) => ({ cpu, memoryMb: 0, gpu: 0, gpuMemoryMb: 0, diskMb: 0 });
    const now = Date.now();
    const config = defaultConfig({ cpu: 10, memoryMb: 10_000, gpu: 0, gpuMemoryMb: 0, diskMb: 0 }, { reserveFraction: 0.3 });
    // best-effort runs 5 CPUs: its nominal is 0.7 * 0.45 * 10 = 3.15, so 1.85 is borrowed from standard.
    const running = Array.from({ length: 5 }, (_, i) => ({
      id: `b${i}`,
      runId: 'r1',
      tier: 'best-effort',
      request: r(1),
      createdAt: now - 10_000,
      nodeId: 'n1',
      startedAt: now - 5_000,
    }));
    const pending = [
      { id: 'c1', runId: 'r2', tier: 'critical', request: r(1), createdAt: now },
      { id: 'b9', runId: 'r1', tier: 'best-effort', request: r(8), createdAt: now },
    ];
    const state: LiveState = {
      now,
      nodes: [{ id: 'n1', capacity: { cpu: 10, memoryMb: 10_000, gpu: 0, gpuMemoryMb: 0, diskMb: 0 }, heartbeatAt: now }],
      pending,
      running,
      queueOf: new Map(),
      runOf: new Map(),
      notStarted: new Set(),
    };
    const result = schedule({ ...state, config });
    const applied = { admitted: 0, preempted: 0, requeued: 0, forced: 0, swept: 0, skipped: 0 };
    await storeSchedulerSamples(database.db, schedulerSamples({ state, result, applied, ms: { load: 0, decide: 0, apply: 0 } }, config));
    const o = await resourceOverview(database.db);
    if (o.quota.status !== 'live') throw new Error('expected live scheduler figures');
    expect(o.quota.nodes).toBe(1);
    expect(o.quota.tiers).toEqual([
      { tier: 'best-effort', admitted: 5, queued: 1 },
      { tier: 'critical', admitted: 1, queued: 0 },
      { tier: 'standard', admitted: 0, queued: 0 },
    ]);
    expect(o.quota.waiting).toEqual({ quota: 1 });
    const be = o.quota.queues.find((q) => q.queue === 'best-effort' && q.resource === 'cpu')!;
    expect(be.used).toBe(5);
    expect(be.nominal).toBeCloseTo(3.15);
    expect(be.borrowed).toBeCloseTo(1.85);
    const { text } = await prometheusText(o);
    expect(text).toMatch(/^crucible_scheduler_up 1$/m);
    expect(text).toContain('crucible_scheduler_admitted{tier="critical"} 1');
    expect(text).toMatch(/crucible_quota_borrowed\{queue="best-effort",tier="best-effort",resource="cpu"\} 1\.85/);
    // Names are bound parameters: several at once, and nothing of them reaches the SQL text.
    const s = await resourceSeries(database.db, { window: '15m', names: ['scheduler_admitted', 'scheduler_nodes'] });
    expect(new Set(s.points.map((p) => p.name))).toEqual(new Set(['scheduler_admitted', 'scheduler_nodes']));
  });

  it('picks the resolution that covers the window', () => {
    expect([sourceForWindow('15m'), sourceForWindow('1h'), sourceForWindow('24h'), sourceForWindow('7d')]).toEqual([
      'resources',
      'resources',
      'resources:1m',
      'resources:10m',
    ]);
  });
});
