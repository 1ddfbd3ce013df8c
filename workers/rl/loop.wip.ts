import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, metricSamples, rewards, runs, turns } from '@/db/schema';
import { createRun, transitionRun } from '@/server/runs/service';
import { freshDatabase } from '@/test/database';
import { runJobLoop } from '@/workers/jobs/job-loop';
import { ensureTestEnvironment, TEST_STORE } from '@/workers/sandbox/test-support';
import { rlHandlers } from './handlers';

const database = await freshDatabase();
const { db } = database;
const dataDir = mkdtempSync(path.join('/tmp', 'crucible-rl-'));
chmodSync(dataDir, 0o755);
process.env.CRUCIBLE_DATA_DIR = dataDir;
process.env.CRUCIBLE_ENV_STORE = TEST_STORE;
process.env.CRUCIBLE_RL_HELDOUT_LIMIT ??= '6';

const ac = new AbortController();
let loop: Promise<void>;
const logs: string[] = [];
beforeAll(() => {
  ensureTestEnvironment();
  loop = runJobLoop({ db, sql: database.sql, workerId: 'rl-test', handlers: rlHandlers, concurrency: 2, pollMs: 200, drainMs: 1000, signal: ac.signal, log: (m) => logs.push(m) });
});
afterAll(async () => {
  ac.abort();
  await loop;
  for (const h of rlHandlers) await h.close?.();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until(runId: string, pred: (r: typeof runs.$inferSelect) => boolean, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const [r] = await db.select().from(runs).where(eq(runs.id, runId));
    if (pred(r!)) return r!;
    if (Date.now() > end) throw new Error(`timed out; run ${JSON.stringify({ status: r!.status, it: r!.currentIteration, done: r!.episodesDone })}; logs: ${logs.slice(-10).join(' | ')}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

describe('RL loop (real Postgres, bwrap sandboxes, ONNX policy on CPU)', () => {
  it('runs iterations end to end with a fixed seed, storing turns, rewards, versions and metrics', async () => {
    const run = await createRun(db, { name: 'tiny', config: { seed: 3, iterations: 2, tasksPerIteration: 3, groupSize: 4, maxTurns: 2, concurrency: 2, learningRate: 1e-3, klCoef: 0 } }, 'test');
    const done = await until(run.id, (r) => r.status === 'completed' || r.status === 'failed', 150_000);
    expect(done.status).toBe('completed');
    expect(done.currentIteration).toBe(2);
    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id)).orderBy(asc(episodes.iteration));
    expect(eps).toHaveLength(24);
    expect(done.episodesDone).toBe(24);
    const [t] = await db.select().from(turns).where(eq(turns.episodeId, eps[0]!.id));
    expect(t!.tokenIds!.length).toBe(t!.lossMask!.length);
    expect(t!.lossMask!.some((m) => m === 1) && t!.lossMask![0] === 0).toBe(true);
    const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(rewards).innerJoin(episodes, eq(episodes.id, rewards.episodeId)).where(eq(episodes.runId, run.id));
    expect(n).toBeGreaterThan(20);
    const m = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id));
    const names = new Set(m.map((x) => x.name));
    for (const k of ['reward_mean', 'heldout_pass_at_1', 'kl', 'entropy', 'infra_failed_rate', 'zero_variance_group_share', 'pass_rate']) expect(names).toContain(k);
    console.log(m.filter((x) => x.name === 'reward_mean' || x.name === 'heldout_pass_at_1').map((x) => `${x.name}@${x.step}=${x.value.toFixed(3)}`).join(' '));
  }, 180_000);
});
void transitionRun;
