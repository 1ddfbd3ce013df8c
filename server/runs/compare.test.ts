import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricSamples } from '@/db/schema';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { anonymousCaller, callerAs } from '@/test/callers';
import { seedRun } from '@/test/seed';
import { COMPARE_MAX_RUNS } from '@/core/metrics';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected the call to fail');
};

describe('runs.compare', () => {
  it('returns each run with its name and every metric sample (labels included), in the order asked', async () => {
    const { db } = database;
    const a = (await seedRun(db, { name: 'grpo-a' })).run;
    const b = (await seedRun(db, { name: 'ppo-b' })).run;
    const other = (await seedRun(db, { name: 'not-compared' })).run;
    await db.insert(metricSamples).values([
      { runId: a.id, source: 'rl', name: 'reward_mean', step: 1, value: 0.2 },
      { runId: a.id, source: 'rl', name: 'reward_mean', step: 2, value: 0.4 },
      { runId: a.id, source: 'rl', name: 'sandbox_failures', step: 2, value: 3, labels: { status: 'sandbox_error' } },
      { runId: b.id, source: 'rl', name: 'reward_mean', step: 1, value: 0.7 },
      { runId: other.id, source: 'rl', name: 'reward_mean', step: 1, value: 9 },
    ]);
    const viewer = await callerAs(db, 'viewer');
    const res = await viewer.runs.compare({ ids: [b.id, a.id] });
    expect(res.runs.map((r) => r.name)).toEqual(['ppo-b', 'grpo-a']);
    expect(res.runs[0]!.iterations).toBe(b.config.iterations);
    expect(res.samples.every((s) => s.runId === a.id || s.runId === b.id)).toBe(true);
    const rewardA = res.samples.filter((s) => s.runId === a.id && s.name === 'reward_mean').map((s) => [s.step, s.value]);
    expect(rewardA).toEqual([
      [1, 0.2],
      [2, 0.4],
    ]);
    expect(res.samples.find((s) => s.name === 'sandbox_failures')).toMatchObject({ runId: a.id, value: 3, labels: { status: 'sandbox_error' } });
    expect(res.samples).toHaveLength(4);
  });

  it('names the unknown ids instead of returning a shorter comparison', async () => {
    const { db } = database;
    const a = (await seedRun(db, { name: 'known' })).run;
    const ghost = '00000000-0000-4000-8000-00000000beef';
    const viewer = await callerAs(db, 'viewer');
    const err = await failure(viewer.runs.compare({ ids: [a.id, ghost] }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain(ghost);
    expect(err.message).not.toContain(a.id);
  });

  it('refuses too many runs, duplicates and non-uuid ids with a message saying what to change', async () => {
    const viewer = await callerAs(database.db, 'viewer');
    const ids = Array.from({ length: COMPARE_MAX_RUNS + 1 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const tooMany = await failure(viewer.runs.compare({ ids }));
    expect(tooMany.code).toBe('BAD_REQUEST');
    expect(tooMany.message).toContain(`at most ${COMPARE_MAX_RUNS} runs`);
    const dup = await failure(viewer.runs.compare({ ids: [ids[0]!, ids[0]!] }));
    expect(dup.message).toContain('only once');
    const bad = await failure(viewer.runs.compare({ ids: ['run-1'] }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toContain('run id (uuid)');
    expect((await failure(viewer.runs.compare({ ids: [] }))).message).toContain('at least one run');
  });

  it('requires a signed-in user', async () => {
    const a = (await seedRun(database.db)).run;
    expect((await failure(anonymousCaller(database.db).runs.compare({ ids: [a.id] }))).code).toBe('UNAUTHORIZED');
  });
});
