import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { RL_ITERATION_METRICS, rlSample } from '@/core/metrics';
import { environments, metricSamples, reviews, rewards, runs } from '@/db/schema';
import { seedEpisode, seedRun } from '@/test/seed';

const capacity = '{"cpus":4,"memoryMb":8000,"gpuCount":0,"gpuMemoryMb":0,"diskMb":1000}';

/**
 * A database state that gives every alert figure a value (server/resources/alert-figures.ts),
 * written the way Crucible writes it: a running run with two iterations of RL metrics, a
 * tampered episode and four double reviews; a run that ended two hours ago (out of scope);
 * workers on nodeA (running, lost, lost-and-restarted) and nodeB (all lost); a quarantined
 * environment; a critical job queued ten minutes ago. The node figures (memory, disk) are the
 * metrics worker's samples: a test stores them with workers/metrics/sampler.ts itself (server/
 * may not import a worker).
 */
export async function seedAlertInputs(db: Db) {
  const { run, tasks } = await seedRun(db, { name: 'alerting' });
  const { run: old } = await seedRun(db, { name: 'ended long ago' });
  await db
    .update(runs)
    .set({ status: 'completed', finishedAt: sql`now() - interval '2 hours'`, updatedAt: sql`now() - interval '2 hours'` })
    .where(eq(runs.id, old.id));
  // iteration 1 then 2: the newest step wins (value = step + index / 100)
  for (const step of [1, 2]) {
    await db.insert(metricSamples).values(RL_ITERATION_METRICS.map((m, i) => rlSample(run.id, m, step, step + i / 100)));
    await db.insert(metricSamples).values(rlSample(old.id, 'kl', step, 9));
  }
  // a labelled RL sample is not an iteration metric's value
  await db.insert(metricSamples).values(rlSample(run.id, 'reward_mean', 3, 42, { k: '1' }));

  const tampered = await seedEpisode(db, run.id, tasks[0]!.id, 0);
  await db
    .update(rewards)
    .set({ components: { passRate: 0, tampered: 1 } })
    .where(eq(rewards.episodeId, tampered.id));
  await seedEpisode(db, run.id, tasks[1]!.id, 1);
  const verdicts = [
    ['correct', 'correct'],
    ['correct', 'false_positive'],
    ['false_positive', 'false_positive'],
    ['correct', 'correct'],
  ] as const;
  for (const [i, [a, b]] of verdicts.entries()) {
    const ep = await seedEpisode(db, run.id, tasks[i]!.id, 0.5);
    await db.insert(reviews).values([
      { episodeId: ep.id, runId: run.id, slot: 0, sampleReason: 'uniform', verdict: a, submittedAt: new Date() },
      { episodeId: ep.id, runId: run.id, slot: 1, sampleReason: 'uniform', verdict: b, submittedAt: new Date() },
    ]);
  }
  // a double review still open counts for nothing
  const open = await seedEpisode(db, run.id, tasks[4]!.id, 0.5);
  await db.insert(reviews).values([
    { episodeId: open.id, runId: run.id, slot: 0, sampleReason: 'uniform', verdict: 'correct' },
    { episodeId: open.id, runId: run.id, slot: 1, sampleReason: 'uniform' },
  ]);

  await db.execute(sql`insert into workers (id, kind, hostname, pid, capacity, node, status, started_at, heartbeat_at, stopped_at) values
    ('jobs-a-1', 'jobs', 'hostA', 1, ${capacity}::jsonb, 'nodeA', 'running', now() - interval '1 hour', now(), null),
    ('sandbox-a-2', 'sandbox', 'hostA', 2, ${capacity}::jsonb, 'nodeA', 'lost', now() - interval '1 hour', now() - interval '5 minutes', now() - interval '4 minutes'),
    ('jobs-a-3', 'jobs', 'hostA', 3, ${capacity}::jsonb, 'nodeA', 'lost', now() - interval '2 hours', now() - interval '70 minutes', now() - interval '59 minutes'),
    ('metrics-b-4', 'metrics', 'nodeB', 4, ${capacity}::jsonb, null, 'lost', now() - interval '1 hour', now() - interval '3 minutes', now() - interval '2 minutes'),
    ('jobs-b-5', 'jobs', 'hostB', 5, ${capacity}::jsonb, 'nodeB', 'stopped', now() - interval '1 hour', now() - interval '9 minutes', now() - interval '9 minutes'),
    ('jobs-c-6', 'jobs', 'hostC', 6, ${capacity}::jsonb, 'nodeC', 'lost', now() - interval '3 hours', now() - interval '2 hours', now() - interval '2 hours'),
    ('jobs-d-7', 'jobs', 'hostD', 7, ${capacity}::jsonb, 'nodeD', 'lost', now() - interval '1 hour', now() - interval '30 minutes', now() - interval '29 minutes'),
    ('jobs-d-8', 'jobs', 'hostD', 8, ${capacity}::jsonb, 'nodeD', 'stopped', now() - interval '1 hour', now() - interval '5 minutes', now() - interval '5 minutes')`);

  await db.insert(environments).values([
    { name: 'py-bad', contentHash: 'sha256:bad', quarantinedAt: new Date(), quarantineReason: 'disputed verdicts' },
    { name: 'py-good', contentHash: 'sha256:good' },
  ]);

  await db.execute(sql`insert into jobs (queue, state, tier, queued_at, run_after) values
    ('rl.episode', 'queued', 'critical', now() - interval '10 minutes', now() - interval '10 minutes'),
    ('rl.episode', 'queued', 'critical', now() - interval '1 hour', now() + interval '1 minute'),
    ('rl.episode', 'running', 'critical', now() - interval '2 hours', now() - interval '2 hours'),
    ('rl.episode', 'queued', 'standard', now() - interval '1 hour', now() - interval '2 minutes')`);

  return { run, old };
}
