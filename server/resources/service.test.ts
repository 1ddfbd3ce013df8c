import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { sampleCluster, sampleNode, storeSamples } from '@/workers/metrics/sampler';
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
    await storeSamples(database.db, [...sampleNode(state, () => null, 'nodeA'), ...(await sampleCluster(database.db))]);
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

  it('picks the resolution that covers the window', () => {
    expect([sourceForWindow('15m'), sourceForWindow('1h'), sourceForWindow('24h'), sourceForWindow('7d')]).toEqual(['resources', 'resources', 'resources:1m', 'resources:10m']);
  });
});
