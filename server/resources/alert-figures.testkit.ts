import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { RL_ITERATION_METRICS, rlSample } from '@/core/metrics';
import { environments, metricSamples, reviews, rewards, runs } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { seedEpisode, seedRun } from '@/test/seed';

const capacity = '{"cpus":4,"memoryMb":8000,"gpuCount":0,"gpuMemoryMb":0,"diskMb":1000}';

/**
 * A database state that gives every alert figure a value (server/resources/alert-figures.ts),
 * written the way Crucible writes it: a running run with seven iterations of RL metrics, a
 * tampered episode and four double reviews; a completed run (out of scope); workers on nodeA
 * (running, lost, lost-and-restarted), nodeB (all lost) and nodeC (lost over a day ago); a
 * quarantined environment; a critical job queued ten minutes ago; sandbox execs refused for a
 * hash mismatch and denied egress connections and a seccomp kill, in the audit log. The node figures (memory, disk) are the
 * metrics worker's samples: a test stores them with workers/metrics/sampler.ts itself (server/
 * may not import a worker).
 */
export async function seedAlertInputs(db: Db) {
  const { run, tasks } = await seedRun(db, { name: 'alerting' });
  const { run: old } = await seedRun(db, { name: 'ended long ago' });
  await db
    .update(runs)
    .set({ status: 'completed', finishedAt: sql`now()` })
    .where(eq(runs.id, old.id));
  // iterations 1..7, metric i of iteration s = s + i / 100: the newest is step 7, reward_mean's baseline the mean of steps 2..6 (4)
  for (let step = 1; step <= 7; step++) {
    await db.insert(metricSamples).values(RL_ITERATION_METRICS.map((m, i) => rlSample(run.id, m, step, step + i / 100)));
    await db.insert(metricSamples).values(rlSample(old.id, 'kl', step, 9));
  }
  // a labelled RL sample is not an iteration metric's value
  await db.insert(metricSamples).values(rlSample(run.id, 'reward_mean', 8, 42, { k: '1' }));

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
    ('jobs-a-3', 'jobs', 'hostA', 3, ${capacity}::jsonb, 'nodeA', 'lost', now() - interval '2 hours', now() - interval '70 minutes', now() - interval '69 minutes'),
    ('metrics-b-4', 'metrics', 'nodeB', 4, ${capacity}::jsonb, null, 'lost', now() - interval '1 hour', now() - interval '3 minutes', now() - interval '2 minutes'),
    ('jobs-b-5', 'jobs', 'hostB', 5, ${capacity}::jsonb, 'nodeB', 'stopped', now() - interval '1 hour', now() - interval '9 minutes', now() - interval '9 minutes'),
    ('jobs-c-6', 'jobs', 'hostC', 6, ${capacity}::jsonb, 'nodeC', 'lost', now() - interval '30 hours', now() - interval '25 hours', now() - interval '25 hours')`);

  await db.insert(environments).values([
    { name: 'py-bad', contentHash: 'sha256:bad', quarantinedAt: new Date(), quarantineReason: 'disputed verdicts' },
    { name: 'py-good', contentHash: 'sha256:good' },
  ]);

  await db.execute(sql`insert into jobs (queue, state, tier, queued_at) values
    ('rl.episode', 'queued', 'critical', now() - interval '10 minutes'),
    ('rl.episode', 'running', 'critical', now() - interval '2 hours'),
    ('rl.episode', 'queued', 'standard', now() - interval '2 minutes'),
    ('rl.advance', 'queued', null, now() - interval '3 hours')`);

  const exec = (details: Record<string, unknown>) =>
    appendAudit(db, { actor: 'system:sandbox', action: 'sandbox.exec', targetType: 'sandbox', targetId: 'sb-1', details: { runId: run.id, ...details } });
  await exec({ envHash: 'sha256:good', status: 'env_mismatch', signal: null });
  await exec({ envHash: 'sha256:gone', status: 'env_mismatch', signal: null });
  await exec({ envHash: 'sha256:good', status: 'env_mismatch', signal: null });
  const egress = (allowed: boolean) => ({ host: 'example.com', port: 443, allowed, bytesOut: 0, bytesIn: 0 });
  await exec({ envHash: 'sha256:good', status: 'nonzero_exit', signal: null, egress: [egress(false), egress(true), egress(false)] });
  await exec({ envHash: 'sha256:good', status: 'killed', signal: 'SIGSYS' });
  await exec({ envHash: 'sha256:good', status: 'ok', signal: null });
  return { run, old };
}
