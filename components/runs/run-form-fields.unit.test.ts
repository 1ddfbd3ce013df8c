import { describe, expect, it } from 'vitest';
import { defaultRunConfig, runConfigSchema } from '@/core/run-config';
import { PROBED_RUNTIME_NAMES } from '@/core/sandbox-runtimes';
import { allFields, configFromValues, valuesFromConfig } from './run-form-fields';
import { describePolicy, POLICY_KEYS } from './policy-fields';

const leafPaths = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? leafPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`]));

describe('launch form fields', () => {
  it('cover every config key, so nothing is silently left at its default', () => {
    const notPolicy = leafPaths(defaultRunConfig).filter((p) => !p.startsWith('policy.'));
    // optional fields (a system prompt) have no default to be left at: the config leaves them out when empty
    expect(
      allFields
        .filter((f) => !f.optional)
        .map((f) => f.path)
        .sort(),
    ).toEqual(notPolicy.sort());
    // the policy section: every leaf of a registered model's policy but its kind (which the model choice decides)
    const hf = runConfigSchema.parse({ policy: { kind: 'hf', model: 'm' } }).policy;
    expect(Object.values(POLICY_KEYS).sort()).toEqual(
      leafPaths({ policy: hf })
        .filter((p) => p !== 'policy.kind')
        .sort(),
    );
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

  it('leave an empty system prompt out of the config (the default) and keep a written one', () => {
    const values = valuesFromConfig();
    expect(values.agentSystemPrompt).toBe('');
    expect(configFromValues(values).config).not.toHaveProperty('agentSystemPrompt');
    const own = configFromValues({ ...values, agentSystemPrompt: '  You fix bugs.\n' });
    expect(runConfigSchema.parse(own.config).agentSystemPrompt).toBe('You fix bugs.');
    expect(valuesFromConfig(runConfigSchema.parse(own.config)).agentSystemPrompt).toBe('You fix bugs.');
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

describe('launch form policy', () => {
  const withPolicy = (over: Record<string, string>) => configFromValues({ ...valuesFromConfig(), ...over });

  it('starts on the built-in byte model, whatever LoRA values the form still holds', () => {
    expect(valuesFromConfig()[POLICY_KEYS.model]).toBe('');
    const { config, errors } = withPolicy({ [POLICY_KEYS.rank]: 'lots', [POLICY_KEYS.targets]: '' });
    expect(errors).toEqual({});
    expect(config.policy).toEqual({ kind: 'byte' });
  });

  it('builds a registered model under LoRA with the chosen rank, alpha and targets, and shows it back the same way', () => {
    const { config, errors } = withPolicy({
      [POLICY_KEYS.model]: 'stories260K',
      [POLICY_KEYS.rank]: '4',
      [POLICY_KEYS.alpha]: '8',
      [POLICY_KEYS.targets]: 'q_proj, k_proj',
      [POLICY_KEYS.precision]: 'bf16',
    });
    expect(errors).toEqual({});
    const parsed = runConfigSchema.parse(config);
    expect(parsed.policy).toEqual({
      kind: 'hf',
      model: 'stories260K',
      training: 'lora',
      precision: 'bf16',
      lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'k_proj'] },
    });
    const back = valuesFromConfig(parsed);
    expect([
      back[POLICY_KEYS.model],
      back[POLICY_KEYS.training],
      back[POLICY_KEYS.precision],
      back[POLICY_KEYS.rank],
      back[POLICY_KEYS.alpha],
      back[POLICY_KEYS.targets],
    ]).toEqual(['stories260K', 'lora', 'bf16', '4', '8', 'q_proj, k_proj']);
    // a new choice starts at the schema's LoRA defaults
    expect(runConfigSchema.parse(withPolicy({ [POLICY_KEYS.model]: 'm' }).config).policy).toEqual({
      kind: 'hf',
      model: 'm',
      training: 'lora',
      precision: 'fp32',
      lora: { rank: 8, alpha: 16, targetModules: ['q_proj', 'v_proj'] },
    });
  });

  it('full training leaves the LoRA settings out', () => {
    const { config, errors } = withPolicy({ [POLICY_KEYS.model]: 'm', [POLICY_KEYS.training]: 'full', [POLICY_KEYS.rank]: '' });
    expect(errors).toEqual({});
    expect(config.policy).toEqual({ kind: 'hf', model: 'm', training: 'full', precision: 'fp32' });
  });

  it('reports bad LoRA values by field; PPO is allowed on a registered model (it gets a value head)', () => {
    expect(withPolicy({ [POLICY_KEYS.model]: 'm', [POLICY_KEYS.rank]: '', [POLICY_KEYS.alpha]: 'x' }).errors).toEqual({
      [POLICY_KEYS.rank]: 'Enter a number',
      [POLICY_KEYS.alpha]: 'Enter a number',
    });
    const { config, errors } = withPolicy({ [POLICY_KEYS.model]: 'm', [POLICY_KEYS.rank]: '0', [POLICY_KEYS.targets]: '', algorithm: 'ppo' });
    expect(errors).toEqual({});
    const issues = runConfigSchema.safeParse(config).error!.issues;
    expect(Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]))).toEqual({
      [POLICY_KEYS.rank]: expect.stringMatching(/>=1/),
      [POLICY_KEYS.targets]: expect.stringMatching(/at least one target module/),
    });
  });

  it("describes a run's policy for its page, runs from before policies as the byte model", () => {
    expect(describePolicy(undefined)).toEqual({ model: null, training: 'byte model (built-in)' });
    expect(describePolicy({ kind: 'byte' })).toEqual({ model: null, training: 'byte model (built-in)' });
    const lora = runConfigSchema.parse({ policy: { kind: 'hf', model: 'stories260K' } }).policy;
    expect(describePolicy(lora)).toEqual({ model: 'stories260K', training: 'LoRA r=8 α=16 on q_proj, v_proj' });
    const full = runConfigSchema.parse({ policy: { kind: 'hf', model: 'stories260K', training: 'full' } }).policy;
    expect(describePolicy(full)).toEqual({ model: 'stories260K', training: 'full fine-tuning' });
    const half = runConfigSchema.parse({ policy: { kind: 'hf', model: 'stories260K', training: 'full', precision: 'bf16' } }).policy;
    expect(describePolicy(half)).toEqual({ model: 'stories260K', training: 'full fine-tuning · bf16 mixed precision' });
  });
});
