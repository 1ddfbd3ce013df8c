import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { RL_ITERATION_METRICS } from '@/core/metrics';
import { freshDatabase } from '@/test/database';
import { cohensKappa } from '@/server/reviews/kappa';
import { alertFigures } from './alert-figures';
import { seedAlertInputs } from './alert-figures.testkit';
import { metricsExposition } from './prometheus';
import { sampleCluster, sampleNode, storeSamples } from '@/workers/metrics/sampler';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

/** The value of one sample line of the exposition, or null when the series is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe('alert figures in /api/metrics', () => {
  it('has nothing of runs, workers or environments on an empty database, and every tier waits 0 s', async () => {
    expect(await alertFigures(database.db)).toEqual({
      runs: [],
      workers: [],
      nodes: [],
      environments: [],
      queueWait: [
        { tier: 'best-effort', oldestSeconds: 0 },
        { tier: 'critical', oldestSeconds: 0 },
        { tier: 'standard', oldestSeconds: 0 },
      ],
      envMismatches: [],
      securityDenials: 0,
    });
  });

  it('scrapes each figure from what Crucible wrote: live runs, lost workers of the last day, the last 10 minutes of sandbox events', async () => {
    const { run, old } = await seedAlertInputs(database.db);
    const state = {};
    sampleNode(state, () => null, 'nodeA');
    await new Promise((r) => setTimeout(r, 50)); // the CPU figure needs two readings
    await storeSamples(database.db, [...sampleNode(state, () => null, 'nodeA'), ...(await sampleCluster(database.db, 0.3))]);
    const { text, contentType } = await metricsExposition(database.db);
    expect(contentType).toContain('text/plain');
    const r = `{run="${run.id}",run_name="alerting"}`;
    // the newest iteration (step 7) of every per-iteration RL metric; the labelled step-8 sample is not one
    for (const [i, m] of RL_ITERATION_METRICS.entries()) expect(sample(text, `crucible_rl_${m}${r}`)).toBeCloseTo(7 + i / 100);
    expect(text).toContain('# TYPE crucible_rl_reward_mean gauge');
    // the 5 iterations before the newest: steps 2..6
    expect(sample(text, `crucible_rl_reward_mean_baseline${r}`)).toBeCloseTo(4);
    // the completed run is out of scope
    expect(text).not.toContain(old.id);
    expect(sample(text, `crucible_run_tampered_episodes_1h${r}`)).toBe(1);
    expect(sample(text, `crucible_run_review_pairs${r}`)).toBe(4);
    const kappa = cohensKappa([
      ['correct', 'correct'],
      ['correct', 'false_positive'],
      ['false_positive', 'false_positive'],
      ['correct', 'correct'],
    ])!;
    expect(kappa).toBeCloseTo(0.5);
    expect(sample(text, `crucible_run_review_kappa${r}`)).toBeCloseTo(kappa);

    // nodeA: one running worker; its lost sandbox worker is down; its lost job worker was restarted (not shown)
    expect(sample(text, 'crucible_worker_up{worker="jobs-a-1",kind="jobs",node="nodeA"}')).toBe(1);
    expect(sample(text, 'crucible_worker_up{worker="sandbox-a-2",kind="sandbox",node="nodeA"}')).toBe(0);
    expect(text).not.toContain('jobs-a-3');
    // nodeB (the hostname of a worker without a scheduler node): only a lost worker is left
    expect(sample(text, 'crucible_worker_up{worker="metrics-b-4",kind="metrics",node="nodeB"}')).toBe(0);
    expect(text).not.toContain('jobs-b-5');
    expect(sample(text, 'crucible_node_up{node="nodeA"}')).toBe(1);
    expect(sample(text, 'crucible_node_up{node="nodeB"}')).toBe(0);
    // nodeC's worker was lost over a day ago: history, not an alert
    expect(text).not.toContain('nodeC');

    expect(sample(text, 'crucible_environment_quarantined{environment="py-bad"}')).toBe(1);
    expect(sample(text, 'crucible_environment_quarantined{environment="py-good"}')).toBeNull(); // only quarantined ones are listed

    // scheduled jobs only (the unscheduled rl.advance job has no tier)
    const critical = sample(text, 'crucible_queue_oldest_wait_seconds{tier="critical"}')!;
    expect(critical).toBeGreaterThanOrEqual(600);
    expect(critical).toBeLessThan(660);
    const standard = sample(text, 'crucible_queue_oldest_wait_seconds{tier="standard"}')!;
    expect(standard).toBeGreaterThanOrEqual(120);
    expect(standard).toBeLessThan(180);
    expect(sample(text, 'crucible_queue_oldest_wait_seconds{tier="best-effort"}')).toBe(0);

    // hash mismatches by environment name (or the hash no environment has); two denied connections and a SIGSYS kill
    expect(sample(text, 'crucible_sandbox_env_mismatches_10m{environment="py-good"}')).toBe(2);
    expect(sample(text, 'crucible_sandbox_env_mismatches_10m{environment="sha256:gone"}')).toBe(1);
    expect(sample(text, 'crucible_sandbox_security_denials_10m')).toBe(3);

    // the node's disk and memory, from the metrics worker's samples
    const used = sample(text, 'crucible_node_disk_used_bytes{node="nodeA"}')!;
    const total = sample(text, 'crucible_node_disk_total_bytes{node="nodeA"}')!;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(total);
    expect(sample(text, 'crucible_node_memory_used_bytes{node="nodeA"}')).toBeGreaterThan(0);
  });
});
