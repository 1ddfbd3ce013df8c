import { describe, expect, it } from 'vitest';
import { defaultRunConfig, runConfigSchema } from '@/core/run-config';
import { PROBED_RUNTIME_NAMES } from '@/core/sandbox-runtimes';
import { allFields, configFromValues, valuesFromConfig } from './run-form-fields';

describe('launch form fields', () => {
  it('cover every config key, so nothing is silently left at its default', () => {
    const leafPaths = (o: object, prefix = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? leafPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    expect(allFields.map((f) => f.path).sort()).toEqual(leafPaths(defaultRunConfig).sort());
  });

  it("offer one choice per runtime, start new runs on the deployment default, and keep a copied run's alias", () => {
    for (const path of ['isolation.routine', 'isolation.high']) {
      const f = allFields.find((x) => x.path === path);
      expect(f?.kind).toBe('select');
      expect(f?.options).toEqual(PROBED_RUNTIME_NAMES);
      expect(f?.deploymentDefault).toBe(true);
    }
    // a new run leaves both tiers to the launch (server/runs/launch-isolation.ts)
    const fresh = configFromValues(valuesFromConfig());
    expect(fresh.errors).toEqual({});
    expect(fresh.config.isolation).toBeUndefined();
    const { config, errors } = configFromValues({ ...valuesFromConfig(), 'isolation.high': 'oci:runsc' });
    expect(errors).toEqual({});
    expect(config.isolation).toEqual({ high: 'oci:runsc' });
    // a copied run names its tiers, aliases included
    const copied = valuesFromConfig(runConfigSchema.parse({ isolation: { routine: 'bwrap', high: 'oci:runsc' } }));
    expect([copied['isolation.routine'], copied['isolation.high']]).toEqual(['bwrap', 'oci:runsc']);
  });

  it('start from the schema defaults and turn back into exactly the default config', () => {
    const values = valuesFromConfig();
    expect(values.groupSize).toBe('8');
    expect(values['quota.memoryMb']).toBe('4096');
    const { config, errors } = configFromValues(values);
    expect(errors).toEqual({});
    expect(runConfigSchema.parse(config)).toEqual(defaultRunConfig);
  });

  it('take the curriculum as comma-separated task ids and show it the same way', () => {
    const { config, errors } = configFromValues({ ...valuesFromConfig(), trainTasks: ' py/add_7, js/take_4 ,' });
    expect(errors).toEqual({});
    expect(runConfigSchema.parse(config).trainTasks).toEqual(['py/add_7', 'js/take_4']);
    expect(valuesFromConfig(runConfigSchema.parse(config)).trainTasks).toBe('py/add_7, js/take_4');
  });

  it('report blank and non-numeric numbers by field instead of sending NaN', () => {
    const values = { ...valuesFromConfig(), groupSize: '', learningRate: 'fast' };
    const { errors } = configFromValues(values);
    expect(errors).toEqual({ groupSize: 'Enter a number', learningRate: 'Enter a number' });
  });

  it('keep out-of-range values for the schema to reject with the field path', () => {
    const { config } = configFromValues({ ...valuesFromConfig(), 'quota.cpus': '0' });
    const r = runConfigSchema.safeParse(config);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['quota.cpus']);
  });
});
