import assert from 'node:assert';
import type { Sql } from 'postgres';
import { defaultRunConfig } from '@/core/run-config';

export type SeededTurn = { action: string; stdout: string; stderr: string; exitCode: number };

export const seededTurns: SeededTurn[] = [
  { action: 'def add(a, b):\n    return a - b  # first try', stdout: 'FAILED test_add: expected 5, got -1', stderr: 'AssertionError: 2 + 3', exitCode: 1 },
  { action: 'def add(a, b):\n    return a + b', stdout: 'ran 3 tests: 3 passed', stderr: '', exitCode: 0 },
  { action: 'print(add(2, 3))', stdout: '5', stderr: 'warning: unused import os', exitCode: 0 },
];

/**
 * What an RL iteration would have written for one trajectory: a suite, a task, a finished
 * run, one scored episode with three turns and a reward, and a few metric samples.
 */
export async function seedEpisode(sql: Sql, tag: string) {
  const envHash = `sha256:${'ab12'.repeat(16)}`;
  const [suite] = await sql`insert into task_suites (name, description, source) values (${`e2e-suite-${tag}`}, 'seeded by e2e', 'import') returning id`;
  assert(suite !== undefined, 'no row found');
  const [task] = await sql`
    insert into tasks (suite_id, external_id, language, prompt, entry_point, tests)
    values (${suite.id}, 'add-two-numbers', 'python', 'Write add(a, b) returning the sum.', 'add', ${sql.json([{ input: [2, 3], expected: 5 }])})
    returning id`;
  assert(task !== undefined, 'no row found');
  const config = { ...defaultRunConfig, suite: `e2e-suite-${tag}`, iterations: 3, groupSize: 2, tasksPerIteration: 1 };
  const [run] = await sql`
    insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, last_reward_mean, started_at, finished_at)
    values (${`seeded-run-${tag}`}, 'completed', ${sql.json(config)}, ${suite.id}, 3, 6, 6, 0.82, now() - interval '5 minutes', now())
    returning id`;
  assert(run !== undefined, 'no row found');
  const [episode] = await sql`
    insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, started_at, finished_at)
    values (${run.id}, ${task.id}, 2, 0, 1, 'scored', 'bwrap', ${envHash}, 3, 'tests_passed', now() - interval '40 seconds', now() - interval '31 seconds')
    returning id`;
  assert(episode !== undefined, 'no row found');
  for (const [i, t] of seededTurns.entries()) {
    await sql`
      insert into turns (episode_id, index, action, stdout, stderr, exit_code, exec_status, policy_ms, sandbox_ms, cpu_ms, max_rss_mb)
      values (${episode.id}, ${i}, ${t.action}, ${t.stdout}, ${t.stderr}, ${t.exitCode}, 'ok', ${120 + i}, ${340 + i}, ${90 + i}, ${21.5 + i})`;
  }
  await sql`
    insert into rewards (episode_id, value, components, env_hash, harness_version)
    values (${episode.id}, 0.875, ${sql.json({ passRate: 1, testsPassed: 3, testsTotal: 3, style: 0.5, efficiency: 0.75 })}, ${envHash}, 'harness-1.0.0')`;
  for (let step = 0; step < 3; step++) {
    await sql`insert into metric_samples (run_id, source, name, step, value) values (${run.id}, 'trainer', 'reward_mean', ${step}, ${0.3 + step * 0.26})`;
  }
  return { runId: run.id as string, episodeId: episode.id as string, envHash, runName: `seeded-run-${tag}` };
}
