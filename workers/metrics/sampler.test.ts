import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { cpuUtilisation, readCpuTimes, readGpus, readMemory } from './node-stats';
import { rollup } from './rollup';
import { METRIC_SOURCES } from '@/core/metrics';
import { sampleCluster, sampleNode, storeSamples } from './sampler';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => {});

describe('node stats from the real /proc', () => {
  it('reads CPU deltas and memory', async () => {
    const a = readCpuTimes();
    const end = Date.now() + 150;
    while (Date.now() < end) Math.sqrt(Math.random()); // burn some CPU so the delta is non-zero
    const b = readCpuTimes();
    const u = cpuUtilisation(a, b);
    expect(u).not.toBeNull();
    expect(u!).toBeGreaterThan(0);
    expect(u!).toBeLessThanOrEqual(1);
    const m = readMemory();
    expect(m.totalMb).toBeGreaterThan(100);
    expect(m.usedMb).toBeGreaterThan(0);
    expect(m.usedMb).toBeLessThan(m.totalMb);
  });

  it('records GPUs as absent when nvidia-smi fails, and parses its CSV (fake nvidia-smi: no GPU here)', async () => {
    expect(
      readGpus(() => {
        throw new Error('ENOENT');
      }),
    ).toBeNull();
    expect(readGpus(() => '0, 37, 1024, 81920\n1, 0, 0, 81920\n')).toEqual([
      { index: 0, utilisation: 0.37, memoryUsedMb: 1024, memoryTotalMb: 81920 },
      { index: 1, utilisation: 0, memoryUsedMb: 0, memoryTotalMb: 81920 },
    ]);
    const state = {};
    sampleNode(state, () => null, 'n1');
    await new Promise((r) => setTimeout(r, 50)); // let the jiffy counters move
    const pts = sampleNode(state, () => null, 'n1');
    expect(pts.find((p) => p.name === 'node_gpu_present')?.value).toBe(0);
    expect(pts.some((p) => p.name === 'node_gpu_utilisation')).toBe(false);
    expect(pts.some((p) => p.name === 'node_cpu_utilisation')).toBe(true);
    const used = pts.find((p) => p.name === 'node_disk_used_mb')!.value;
    const total = pts.find((p) => p.name === 'node_disk_total_mb')!.value;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(total);
  });
});

describe('cluster sampling, rollup and retention on a fresh database', () => {
  it('counts queued/running jobs per queue and tier, and capacity with the 30% reserve', async () => {
    await database.db.execute(sql`insert into workers (id, kind, hostname, pid, capacity) values
      ('w1', 'jobs', 'nodeA', 1, '{"cpus":8,"memoryMb":16000,"gpuCount":0,"gpuMemoryMb":0,"diskMb":1}')`);
    await database.db.execute(sql`insert into jobs (queue, state) values ('rollout', 'queued'), ('rollout', 'queued'), ('rollout', 'running')`);
    const pts = await sampleCluster(database.db, 0.3);
    expect(pts.find((p) => p.name === 'queue_depth' && p.labels.queue === 'rollout')).toMatchObject({ value: 2, labels: { tier: 'standard' } });
    expect(pts.find((p) => p.name === 'jobs_running' && p.labels.queue === 'rollout')?.value).toBe(1);
    expect(pts.find((p) => p.name === 'capacity' && p.labels.resource === 'cpu')?.value).toBe(8);
    expect(pts.find((p) => p.name === 'reserve' && p.labels.resource === 'cpu')?.value).toBeCloseTo(2.4);
    expect(
      pts
        .filter((p) => p.name === 'sandboxes')
        .map((p) => p.labels.state)
        .sort(),
    ).toEqual(['busy', 'idle', 'warm']);
  });

  it('averages raw samples into 1-minute buckets once, and expires old points', async () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 6; i++) {
      await storeSamples(database.db, [{ name: 'node_cpu_utilisation', value: i % 2 ? 1 : 0, labels: { node: 'x' } }], new Date(t0 + i * 10_000));
    }
    const now = new Date(t0 + 61_000);
    const first = await rollup(database.db, now);
    expect(first.written).toBeGreaterThanOrEqual(1);
    const again = await rollup(database.db, now);
    expect(again.written).toBe(0);
    const rows = await database.db.execute<{ value: number }>(
      sql`select value from metric_samples where source = ${METRIC_SOURCES.resources + ':1m'} and name = 'node_cpu_utilisation'`,
    );
    expect(rows.map((r) => r.value)).toEqual([0.5]);
    // Two hours later the raw points are gone; the minute average stays for 24 h.
    await rollup(database.db, new Date(t0 + 2 * 3_600_000));
    const raw = await database.db.execute(sql`select 1 from metric_samples where source = ${METRIC_SOURCES.resources} and name = 'node_cpu_utilisation'`);
    expect(raw.length).toBe(0);
    const minute = await database.db.execute(sql`select 1 from metric_samples where source = ${METRIC_SOURCES.resources + ':1m'}`);
    expect(minute.length).toBeGreaterThanOrEqual(1);
  });
});
