import { describe, expect, it } from 'vitest';
import { launchCost } from './launch-cost';
import { valuesFromConfig } from './run-form-fields';

describe('launch cost summary', () => {
  const base = {
    ...valuesFromConfig(),
    tasksPerIteration: '8',
    groupSize: '4',
    iterations: '10',
    concurrency: '4',
    'quota.cpus': '2',
    'quota.memoryMb': '4096',
  };

  it('multiplies tasks × group × iterations, doubles with a control arm, counts held-out versions and pass@k ones', () => {
    const c = launchCost({ ...base, 'heldout.tasks': '20', 'heldout.passAtK': '4', 'heldout.passAtKEvery': '3' }, { controlArm: false })!;
    expect(c).toMatchObject({ perIteration: 32, total: 320, arms: 1, heldoutVersions: 11, heldoutTasks: 20, passAtK: { k: 4, versions: 5 } }); // v0, 3, 6, 9, 10
    expect(launchCost(base, { controlArm: true })).toMatchObject({ arms: 2, total: 320, concurrentCpus: 16, heldoutTasks: null, passAtK: null });
    expect(launchCost({ ...base, 'dynamicSampling.enabled': 'true', 'dynamicSampling.maxGroupsFactor': '2' }, { controlArm: false })).toMatchObject({
      perIteration: 32,
      perIterationMax: 64,
      totalMax: 640,
    });
    expect(launchCost({ ...base, iterations: '' }, { controlArm: false })).toBeNull();
  });

  it('warns when concurrency × quota exceeds what the sandbox hosts have, saying how many run at once', () => {
    const total = { cpus: 8, memoryMb: 65536, hosts: 2 };
    expect(launchCost(base, { controlArm: false, total })!.warnings).toEqual([]);
    const w = launchCost(base, { controlArm: true, total })!.warnings;
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/4 concurrent episode\(s\) per arm × 2 vCPUs = 16 vCPUs, but the 2 sandbox host\(s\) have 8: at most 4 episode\(s\) run at once/);
    expect(launchCost({ ...base, 'quota.memoryMb': '32768' }, { controlArm: false, total })!.warnings[0]).toMatch(
      /131072 MB, but the sandbox hosts have 65536 MB/,
    );
  });
});

describe('held-out fields', () => {
  it('go into the config when set and stay out when empty (the deployment decides)', async () => {
    const { configFromValues } = await import('./run-form-fields');
    const { runConfigSchema } = await import('@/core/run-config');
    const set = configFromValues({ ...valuesFromConfig(), 'heldout.tasks': '3', 'heldout.passAtK': '2' });
    expect(set.errors).toEqual({});
    expect(runConfigSchema.parse(set.config).heldout).toEqual({ tasks: 3, passAtK: 2 });
    expect(runConfigSchema.parse(configFromValues(valuesFromConfig()).config).heldout).toBeUndefined();
  });
});
