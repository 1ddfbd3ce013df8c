import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { seedRun } from '@/test/seed';
import { downsampleFamily, type SamplePoint } from './metric-downsample';
import { CHART_MAX_POINTS } from './service';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const STEPS = 3_000;

/** A long run's metrics in one statement: the reward family, a plain series and a labelled one, with planted extremes. */
async function seedLongRun(db: Database['db']) {
  const { run } = await seedRun(db, { name: 'long' });
  await db.execute(sql`
    insert into metric_samples (run_id, source, name, step, value, labels, at)
    select ${run.id}::uuid, 'rl', n.name, g.step,
      case
        when n.name = 'kl' and g.step = 1717 then 50
        when n.name = 'reward_min' and g.step = 2345 then -3
        when n.name = 'reward_max' and g.step = 99 then 4
        else 0.5 + 0.1 * sin(g.step * n.k) end,
      n.labels::jsonb, now() - interval '1 day' + g.step * interval '1 second'
    from generate_series(1, ${STEPS}) as g(step),
      (values ('reward_mean', 1.0, '{}'), ('reward_std', 1.3, '{}'), ('reward_min', 1.7, '{}'), ('reward_max', 2.1, '{}'),
              ('kl', 0.7, '{}'), ('sandbox_failures', 0.3, '{"status":"failed"}'), ('sandbox_failures', 0.9, '{"status":"sandbox_error"}')) as n(name, k, labels)`);
  return run;
}

const stepsOf = (samples: { runId: string; name: string; step: number | null; labels?: unknown }[], name: string, labels?: string) =>
  samples.filter((s) => s.name === name && (labels === undefined || JSON.stringify(s.labels) === labels)).map((s) => s.step!);

describe('runs.compare downsampling (real Postgres)', () => {
  it('returns at most CHART_MAX_POINTS points per series for a long run, min/max and first/last kept, as the reference rule says', async () => {
    const { db } = database;
    const run = await seedLongRun(db);
    const viewer = await callerAs(db, 'viewer');
    const res = await viewer.runs.compare({ ids: [run.id] });
    expect(res.maxPoints).toBe(CHART_MAX_POINTS);
    for (const name of ['reward_mean', 'reward_std', 'reward_min', 'reward_max', 'kl']) {
      const steps = stepsOf(res.samples, name);
      expect(steps.length, name).toBeLessThanOrEqual(CHART_MAX_POINTS);
      expect(steps.length, name).toBeGreaterThan(CHART_MAX_POINTS / 2);
      expect(steps[0], name).toBe(1);
      expect(steps.at(-1), name).toBe(STEPS);
    }
    // the reward spread shares reward_mean's steps (the band and the dashed min/max are drawn at its x)
    expect(stepsOf(res.samples, 'reward_min')).toEqual(stepsOf(res.samples, 'reward_mean'));
    // planted extremes survive
    expect(res.samples.find((s) => s.name === 'kl' && s.step === 1717)?.value).toBe(50);
    expect(res.samples.find((s) => s.name === 'reward_min' && s.step === 2345)?.value).toBe(-3);
    expect(res.samples.find((s) => s.name === 'reward_max' && s.step === 99)?.value).toBe(4);
    // both label sets of a labelled metric at the same steps (the compare page sums them per step)
    expect(stepsOf(res.samples, 'sandbox_failures', '{"status":"failed"}')).toEqual(stepsOf(res.samples, 'sandbox_failures', '{"status":"sandbox_error"}'));
    expect(new Set(res.downsampled)).toEqual(
      new Set(['reward_mean', 'reward_std', 'reward_min', 'reward_max', 'kl', 'sandbox_failures'].map((n) => `${run.id}:${n}`)),
    );
    // ordered by step like the full read
    const all = res.samples.map((s) => s.step!);
    expect([...all].sort((a, b) => a - b)).toEqual(all);

    // the SQL keeps exactly the steps the plain-data rule keeps
    const full = await viewer.runs.compare({ ids: [run.id], full: true });
    expect(full.samples).toHaveLength(STEPS * 7);
    expect(full.downsampled).toEqual([]);
    expect(full.maxPoints).toBeNull();
    const pointsOf = (name: string): SamplePoint[] => full.samples.filter((s) => s.name === name).map((s) => ({ step: s.step!, value: s.value }));
    const family = ['reward_mean', 'reward_std', 'reward_min', 'reward_max'].map(pointsOf);
    expect(stepsOf(res.samples, 'reward_mean')).toEqual(downsampleFamily(family, CHART_MAX_POINTS));
    expect(stepsOf(res.samples, 'kl')).toEqual(downsampleFamily([pointsOf('kl')], CHART_MAX_POINTS));
  });

  it('reads several runs (one query per run, a few at once) as the rule says for each, in one step order', async () => {
    const { db } = database;
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await seedLongRun(db));
    const ids = runs.map((r) => r.id);
    const viewer = await callerAs(db, 'viewer');
    const res = await viewer.runs.compare({ ids, maxPoints: 60 });
    const full = await viewer.runs.compare({ ids, full: true });
    for (const id of ids) {
      const own = res.samples.filter((s) => s.runId === id);
      const pointsOf = (name: string): SamplePoint[] =>
        full.samples.filter((s) => s.runId === id && s.name === name).map((s) => ({ step: s.step!, value: s.value }));
      expect(stepsOf(own, 'kl')).toEqual(downsampleFamily([pointsOf('kl')], 60));
      expect(stepsOf(own, 'reward_max')).toEqual(downsampleFamily(['reward_mean', 'reward_std', 'reward_min', 'reward_max'].map(pointsOf), 60));
      expect(res.downsampled.filter((k) => k.startsWith(id))).toHaveLength(6);
    }
    // ordered by step, then time, across the runs (as the one query over every run ordered them)
    const keys = res.samples.map((s) => [s.step!, s.at] as const);
    expect(keys.every((k, i) => i === 0 || keys[i - 1]![0] < k[0] || (keys[i - 1]![0] === k[0] && keys[i - 1]![1] <= k[1]))).toBe(true);
  });

  it('leaves a short run whole, and honours a smaller maxPoints; runs.metrics downsamples only when asked', async () => {
    const { db } = database;
    const { run } = await seedRun(db, { name: 'short' });
    await db.execute(
      sql`insert into metric_samples (run_id, source, name, step, value) select ${run.id}::uuid, 'rl', 'kl', g, g from generate_series(1, 300) g`,
    );
    const viewer = await callerAs(db, 'viewer');
    const whole = await viewer.runs.compare({ ids: [run.id] });
    expect(whole.samples).toHaveLength(300);
    expect(whole.downsampled).toEqual([]);
    const small = await viewer.runs.compare({ ids: [run.id], maxPoints: 40 });
    expect(small.samples.length).toBeLessThanOrEqual(40);
    expect(small.samples.map((s) => s.step)).toContain(300);
    expect((await viewer.runs.metrics({ ids: [run.id] })).length).toBe(300);
    expect((await viewer.runs.metrics({ ids: [run.id], maxPoints: 40 })).length).toBeLessThanOrEqual(40);
    await expect(viewer.runs.compare({ ids: [run.id], maxPoints: 5 })).rejects.toThrow(/at least 20/);
  });
});
