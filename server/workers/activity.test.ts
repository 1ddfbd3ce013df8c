import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { jobs, runs, sandboxes, workers } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { seedEpisode, seedRun } from '@/test/seed';
import { SHARED_SNAPSHOT_MAX_AGE_MS } from '@/server/resources/service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const capacity = (cpus: number) => ({ cpus, memoryMb: cpus * 2048, gpuCount: 0, gpuMemoryMb: 0, diskMb: 10_000 });

/**
 * Issue 17: /resources (resources.overview) and /workers (workers.list) report the same busy
 * sandboxes, running jobs and active runs, because both read them from clusterActivity.
 */
describe('resources and workers agree', () => {
  it('report the same busy sandboxes, running jobs and active runs, and the per-host figures add up to them', async () => {
    const db = database.db;
    const { run, tasks } = await seedRun(db, { name: 'live' });
    const { run: paused } = await seedRun(db, { name: 'paused' });
    const { run: finished } = await seedRun(db, { name: 'finished' });
    await db.update(runs).set({ status: 'paused' }).where(eq(runs.id, paused.id));
    await db.update(runs).set({ status: 'completed' }).where(eq(runs.id, finished.id));
    const ep = await seedEpisode(db, run.id, tasks[0]!.id, 0.5);
    await db.insert(workers).values([
      { id: 'w-a-jobs', kind: 'jobs', hostname: 'host-a', node: 'host-a', pid: 11, capacity: capacity(8), cpuPercent: 35.5, rssMb: 300 },
      { id: 'w-a-sandbox', kind: 'sandbox', hostname: 'host-a', pid: 12, capacity: capacity(8), cpuPercent: 4.5, rssMb: 120 },
      { id: 'w-b-jobs', kind: 'jobs', hostname: 'host-b', pid: 21, capacity: capacity(4), cpuPercent: 100, rssMb: 512 },
      // lost, but the lease of its job has not expired yet: the job still counts as running
      { id: 'w-b-lost', kind: 'jobs', hostname: 'host-b', pid: 22, capacity: capacity(4), status: 'lost', stoppedAt: new Date() },
    ]);
    const lease = { state: 'running' as const, leaseToken: crypto.randomUUID(), leaseExpiresAt: new Date(Date.now() + 600_000), startedAt: new Date() };
    const [episodeJob] = await db
      .insert(jobs)
      .values([
        { queue: 'rl.episode', payload: { runId: run.id, episodeId: ep.id }, runId: run.id, leaseOwner: 'w-a-jobs', ...lease },
        { queue: 'rl.learn', payload: { runId: run.id }, runId: run.id, leaseOwner: 'w-b-jobs', ...lease },
        { queue: 'sandbox.exec', leaseOwner: 'w-b-lost', ...lease },
        { queue: 'rl.episode', runId: run.id, state: 'queued' },
        { queue: 'rl.episode', runId: run.id, state: 'done', finishedAt: new Date() },
      ])
      .returning();
    await db.insert(sandboxes).values([
      { id: 'sb-busy', workerId: 'w-a-sandbox', runtime: 'bwrap', state: 'busy', episodeId: ep.id },
      { id: 'sb-running', workerId: 'w-b-jobs', runtime: 'bwrap', state: 'running' },
      { id: 'sb-warm', workerId: 'w-a-sandbox', runtime: 'bwrap', state: 'warm' },
      { id: 'sb-idle', workerId: 'w-a-sandbox', runtime: 'bwrap', state: 'idle' },
      { id: 'sb-gone', workerId: 'w-a-sandbox', runtime: 'bwrap', state: 'busy', destroyedAt: new Date() },
    ]);

    const viewer = await callerAs(db, 'viewer');
    const both = async () => {
      const [resources, workerView] = await Promise.all([viewer.resources.overview(), viewer.workers.list({})]);
      expect(resources.activity.totals).toEqual(workerView.activity.totals);
      // what each page lists adds up to its own headline figures
      const hostJobs = workerView.hosts.reduce((n, h) => n + h.runningJobs, 0) + workerView.elsewhere.runningJobs;
      const hostSandboxes = workerView.hosts.reduce((n, h) => n + h.busySandboxes, 0) + workerView.elsewhere.busySandboxes;
      expect({ runningJobs: hostJobs, busySandboxes: hostSandboxes }).toEqual({
        runningJobs: workerView.activity.totals.runningJobs,
        busySandboxes: workerView.activity.totals.busySandboxes,
      });
      expect(resources.tiers.reduce((n, t) => n + t.admitted, 0)).toBe(resources.activity.totals.runningJobs);
      expect(resources.sandboxes.busy).toBe(resources.activity.totals.busySandboxes);
      expect(resources.runs).toHaveLength(resources.activity.totals.activeRuns);
      return { resources, workerView };
    };

    const { resources, workerView } = await both();
    expect(workerView.activity.totals).toEqual({ busySandboxes: 2, runningJobs: 3, activeRuns: 2 });
    expect(resources.sandboxes).toEqual({ busy: 2, idle: 1, warm: 1 });
    expect(resources.runs.map((r) => [r.name, r.status, r.jobsRunning, r.sandboxes]).sort()).toEqual([
      ['live', 'running', 2, 1],
      ['paused', 'paused', 0, 0],
    ]);
    // node → workers → jobs
    expect(workerView.hosts.map((h) => h.hostname)).toEqual(['host-a', 'host-b']);
    const [a, b] = workerView.hosts;
    expect(a).toMatchObject({ workersRunning: 2, workersEnded: 0, cpuPercent: 40, rssMb: 420, runningJobs: 1, busySandboxes: 1, nodes: ['host-a'] });
    expect(a!.capacity?.cpus).toBe(8);
    expect(b).toMatchObject({ workersRunning: 1, runningJobs: 1, busySandboxes: 1, cpuPercent: 100 });
    const aJobs = a!.workers.find((w) => w.id === 'w-a-jobs')!;
    expect(aJobs.jobs).toEqual([expect.objectContaining({ id: episodeJob!.id, queue: 'rl.episode', runId: run.id, runName: 'live', episodeId: ep.id })]);
    expect(workerView.elsewhere).toEqual({ runningJobs: 1, busySandboxes: 0 });
    // with the ended registrations shown, the lost worker's job is on its host
    const all = await viewer.workers.list({ includeEnded: true });
    expect(all.hosts.find((h) => h.hostname === 'host-b')).toMatchObject({ workersRunning: 1, workersEnded: 1, runningJobs: 2 });
    expect(all.elsewhere).toEqual({ runningJobs: 0, busySandboxes: 0 });

    // A job finishes and a sandbox is released: both pages move together (at their next shared snapshot).
    await new Promise((r) => setTimeout(r, SHARED_SNAPSHOT_MAX_AGE_MS));
    await db.update(jobs).set({ state: 'done', leaseOwner: null, finishedAt: new Date() }).where(eq(jobs.id, episodeJob!.id));
    await db.update(sandboxes).set({ state: 'warm' }).where(eq(sandboxes.id, 'sb-busy'));
    await db.update(runs).set({ status: 'completed' }).where(eq(runs.id, paused.id));
    const after = await both();
    expect(after.workerView.activity.totals).toEqual({ busySandboxes: 1, runningJobs: 2, activeRuns: 1 });
  });

  it("shows one worker's own figures, its jobs and sandboxes, and its recent log lines", async () => {
    const db = database.db;
    const viewer = await callerAs(db, 'viewer');
    await db
      .update(workers)
      .set({ recentLogs: [{ at: new Date().toISOString(), line: 'processing rl.episode' }] })
      .where(eq(workers.id, 'w-b-jobs'));
    const w = await viewer.workers.get({ id: 'w-b-jobs' });
    expect(w).toMatchObject({ hostname: 'host-b', cpuPercent: 100, rssMb: 512, hostWorkersRunning: 1 });
    expect(w.jobs.map((j) => j.queue)).toEqual(['rl.learn']);
    expect(w.busySandboxes.map((s) => s.id)).toEqual(['sb-running']);
    expect(w.recentLogs.map((l) => l.line)).toEqual(['processing rl.episode']);
    await expect(viewer.workers.get({ id: 'nobody' })).rejects.toThrow(/no worker nobody/);
    await expect(viewer.workers.get({ id: '' })).rejects.toThrow(/worker id is required/);
    // an episode id in a job payload is linked only when it is one
    await db.execute(sql`update jobs set payload = '{"episodeId": "../../admin"}' where queue = 'rl.learn'`);
    expect((await viewer.workers.get({ id: 'w-b-jobs' })).jobs[0]!.episodeId).toBeNull();
  });
});
