import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { jobs, runCompute, sandboxes, workers } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { seedEpisode, seedRun } from '@/test/seed';
import { enqueue } from '@/server/queue';
import { withComputePhase } from '@/lib/compute/meter';
import { runJobLoop } from '@/workers/jobs/job-loop';
import type { JobHandler } from '@/workers/jobs/job-handler';
import { sampleNodeCpuParts, storeSamples } from '@/workers/metrics/sampler';
import { readCpuTimes } from '@/workers/metrics/node-stats';
import { prometheusText } from '@/server/resources/prometheus';
import { resourceOverview, SHARED_SNAPSHOT_MAX_AGE_MS } from '@/server/resources/service';
import { runComputeUsage } from './service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

/** Spend `ms` of this process's CPU time (not wall time: the host may be busy). */
const burn = (ms: number) => {
  const t = process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
    const d = process.cpuUsage(t);
    if ((d.user + d.system) / 1000 >= ms) return x;
  }
};

async function waitFor<T>(what: string, f: () => Promise<T | false | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('CPU-seconds per run and phase, committed with the job', () => {
  const ac = new AbortController();
  const lines: string[] = [];
  let loop: Promise<void>;
  afterAll(async () => {
    ac.abort();
    await loop;
  });

  it("adds a job's CPU per phase to its run once, with the commit; a failed attempt's is not; logs claimed/finished/failed", async () => {
    const db = database.db;
    const { run } = await seedRun(db, { name: 'metered' });
    const attempts = new Map<number, number>();
    const handler: JobHandler = {
      queue: 'test.compute',
      backoff: { baseMs: 10, maxMs: 20 },
      async run(job) {
        const n = (attempts.get(job.id) ?? 0) + 1;
        attempts.set(job.id, n);
        burn(150); // the job's own phase ('other' for this queue)
        await withComputePhase('grading', async () => {
          burn(100);
        });
        if (job.payload.failFirst && n === 1) throw new Error('first attempt fails');
        return async () => {};
      },
    };
    loop = runJobLoop({
      db,
      sql: database.sql,
      workerId: 'compute-test',
      handlers: [handler],
      concurrency: 1,
      pollMs: 100,
      drainMs: 500,
      signal: ac.signal,
      log: (l) => lines.push(l),
    });
    const a = await enqueue(db, { queue: 'test.compute', payload: { runId: run.id } });
    const b = await enqueue(db, { queue: 'test.compute', payload: { runId: run.id, failFirst: true }, maxAttempts: 3 });
    for (const id of [a.id, b.id]) {
      await waitFor(`job ${id} done`, async () => (await db.select().from(jobs).where(eq(jobs.id, id)))[0]?.state === 'done');
    }
    const usage = await runComputeUsage(db, run.id);
    const phase = (p: string) => usage.phases.find((x) => x.phase === p)!;
    // two committed jobs, each ~0.15 s in its own phase and ~0.1 s grading; the failed attempt's ~0.25 s is not counted
    expect(phase('other').jobs).toBe(2);
    expect(phase('grading').jobs).toBe(2);
    expect(phase('other').cpuSeconds).toBeGreaterThan(0.2);
    expect(phase('other').cpuSeconds).toBeLessThan(0.6);
    expect(phase('grading').cpuSeconds).toBeGreaterThan(0.12);
    expect(phase('grading').cpuSeconds).toBeLessThan(0.4);
    expect(phase('sampling').cpuSeconds).toBe(0);
    expect(usage.cpuSeconds).toBeCloseTo(phase('other').cpuSeconds + phase('grading').cpuSeconds);
    expect(usage.gpuSeconds).toBe(0);

    // job lifecycle lines: queue, job id, run id, duration
    expect(lines).toContain(`job ${a.id} claimed: test.compute (attempt 1/5, run ${run.id})`);
    expect(lines.some((l) => new RegExp(`^job ${a.id} finished: test\\.compute in \\d+ ms, run ${run.id}, \\d+\\.\\d\\d CPU-s$`).test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith(`job ${b.id} failed: test.compute after `) && l.includes(`run ${run.id} (attempt 1/3) → retry`))).toBe(true);

    // Prometheus: counters per run and phase
    const { text } = await prometheusText(await resourceOverview(db));
    expect(text).toContain('# TYPE crucible_run_cpu_seconds_total counter');
    expect(text).toMatch(new RegExp(`^crucible_run_cpu_seconds_total\\{run="${run.id}",phase="grading"\\} 0\\.\\d+$`, 'm'));
    expect(text).not.toContain('crucible_run_gpu_seconds_total{');
    // the run page's figures, through the API
    const viewer = await callerAs(db, 'viewer');
    expect((await viewer.resources.runCompute({ runId: run.id })).cpuSeconds).toBeCloseTo(usage.cpuSeconds);
    const overview = await viewer.resources.overview();
    expect(overview.compute.find((r) => r.runId === run.id)).toMatchObject({ name: 'metered', cpuSeconds: usage.cpuSeconds });
  });
});

describe("a node's CPU stacked by what uses it", () => {
  it("counts a worker's own CPU and the processes it started (sandboxes), from /proc", async () => {
    const db = database.db;
    const node = `parts-${process.pid}`;
    // this test process stands for a worker of the node; the commands it spawns are its "sandboxes"
    await db.insert(workers).values({
      id: `jobs-${node}`,
      kind: 'jobs',
      hostname: node,
      pid: process.pid,
      capacity: { cpus: 2, memoryMb: 4096, gpuCount: 0, gpuMemoryMb: 0, diskMb: 10_000 },
      cpuPhaseSeconds: { learning: 0 },
    });
    const state = {};
    expect(await sampleNodeCpuParts(db, state, node)).toEqual([]);
    await new Promise((r) => setTimeout(r, 50)); // the second reading must not be the first one's baseline only
    // the node's CPU time over a window that holds the sampler's next one (its parts are fractions of it)
    const before = readCpuTimes();
    expect(await sampleNodeCpuParts(db, state, node)).toHaveLength(5);
    // 0.6 s of CPU time (not wall time: a loaded host gives it less CPU per second)
    const child = spawnSync(process.execPath, [
      '-e',
      'const t = process.cpuUsage(); let x = 0; for (;;) { for (let i = 0; i < 10000; i++) x += Math.sqrt(x + 1); const d = process.cpuUsage(t); if (d.user + d.system >= 600000) break; }',
    ]);
    expect(child.status).toBe(0);
    burn(300);
    // 0.3 s of it the "learner" (the worker's heartbeat says so)
    await db
      .update(workers)
      .set({ cpuPhaseSeconds: { learning: 0.2 } })
      .where(eq(workers.hostname, node));
    const points = await sampleNodeCpuParts(db, state, node);
    const windowSeconds = (readCpuTimes().total - before.total) / 100; // jiffies (USER_HZ 100) of all CPUs
    const part = (p: string) => points.find((x) => x.labels.part === p)!.value;
    expect(points.map((p) => p.labels.part).sort()).toEqual(['learner', 'other', 'platform', 'sandboxes', 'workers']);
    // the child's 0.6 CPU-s are the sandboxes' part of the sampler's window, which lies inside ours:
    // part × our window ≥ 0.6 s, however loaded the host (our 0.3 s likewise for workers + learner)
    expect(part('sandboxes') * windowSeconds).toBeGreaterThan(0.5);
    expect(part('learner')).toBeGreaterThan(0);
    expect((part('workers') + part('learner')) * windowSeconds).toBeGreaterThan(0.2);
    const sum = points.reduce((a, p) => a + p.value, 0);
    expect(sum).toBeLessThanOrEqual(1.0001);
    // stored and shown as the node's parts on /resources and in Prometheus
    await storeSamples(db, points);
    const o = await resourceOverview(db);
    const n = o.nodes.find((x) => x.node === node)!;
    expect(n.cpuParts?.sandboxes).toBeCloseTo(part('sandboxes'));
    const { text } = await prometheusText(o);
    expect(text).toMatch(new RegExp(`^crucible_node_cpu_part\\{node="${node}",part="sandboxes"\\} `, 'm'));
  });
});

describe('/resources and /workers read one snapshot', () => {
  it('show the same busy sandboxes and "as of" when read together, even if a sandbox turns busy between the two reads', async () => {
    const db = database.db;
    const { run, tasks } = await seedRun(db, { name: 'snap' });
    const ep = await seedEpisode(db, run.id, tasks[0]!.id, 0.5);
    const viewer = await callerAs(db, 'viewer');
    // past the snapshot the first test's overview left (the pages share one for this long)
    await new Promise((r) => setTimeout(r, SHARED_SNAPSHOT_MAX_AGE_MS));
    const resources = await viewer.resources.overview();
    await db.insert(sandboxes).values({ id: `sb-snap-${process.pid}`, runtime: 'bwrap', state: 'busy', episodeId: ep.id });
    const workerView = await viewer.workers.list({});
    expect(workerView.activity.totals).toEqual(resources.activity.totals);
    expect(new Date(workerView.activity.at).getTime()).toBe(new Date(resources.activity.at).getTime());
    expect(workerView.sampledAt?.getTime() ?? null).toBe(resources.sampledAt?.getTime() ?? null);
    // the node stacked by part, as the previous test sampled it: the same on both pages
    const node = `parts-${process.pid}`;
    const onResources = resources.nodes.find((n) => n.node === node)?.cpuParts;
    expect(onResources?.sandboxes).toBeGreaterThan(0);
    expect(workerView.hosts.find((h) => h.hostname === node)?.node.cpuParts).toEqual(onResources);
    // a fresh read (not the pages' shared one) sees the new sandbox
    expect((await resourceOverview(db)).activity.totals.busySandboxes).toBe(resources.activity.totals.busySandboxes + 1);
  });
});

it('runCompute of a run with nothing counted lists every phase at zero', async () => {
  const { run } = await seedRun(database.db, { name: 'idle' });
  const u = await runComputeUsage(database.db, run.id);
  expect(u.phases.map((p) => p.phase)).toEqual(['sampling', 'sandbox', 'grading', 'learning', 'heldout_eval', 'other']);
  expect(u.cpuSeconds).toBe(0);
  expect((await database.db.select().from(runCompute).where(eq(runCompute.runId, run.id))).length).toBe(0);
});
