import { LORA_MODULES } from '@/core/models';
import { describePolicy, policyChoice, type PolicyChoice } from '@/core/run-config';
import type { FormValues } from './run-form-fields';

/**
 * The launch form's policy choice (issue 15) as form strings. The policy is a discriminated
 * union (the byte model, or a registered model with its training), so it is not one of the
 * flat `fieldGroups` fields: these keys are its form values and, being the config paths zod
 * reports, also where its errors are shown.
 */
export const POLICY_KEYS = {
  /** a registered model's name; empty = the built-in byte model */
  model: 'policy.model',
  training: 'policy.training',
  precision: 'policy.precision',
  rank: 'policy.lora.rank',
  alpha: 'policy.lora.alpha',
  /** comma-separated, like the other checkbox fields */
  targets: 'policy.lora.targetModules',
} as const;

export const isPolicyKey = (key: string) => key === 'policy' || key.startsWith('policy.');

/** The schema's defaults for a registered model (training, rank, alpha, targets), read from the schema itself. */
const hfDefaults = policyChoice.parse({ kind: 'hf', model: 'defaults' }) as Extract<PolicyChoice, { kind: 'hf' }>;

/** Form strings for a config's policy; a run from before policies existed (no `policy`) trained the byte model. */
export function policyValues(policy: PolicyChoice | undefined): FormValues {
  const hf = policy?.kind === 'hf' ? policy : undefined;
  const lora = hf?.lora ?? hfDefaults.lora;
  return {
    [POLICY_KEYS.model]: hf?.model ?? '',
    [POLICY_KEYS.training]: hf?.training ?? hfDefaults.training,
    [POLICY_KEYS.precision]: hf?.precision ?? hfDefaults.precision,
    [POLICY_KEYS.rank]: String(lora.rank),
    [POLICY_KEYS.alpha]: String(lora.alpha),
    [POLICY_KEYS.targets]: lora.targetModules.join(', '),
  };
}

/**
 * The config's `policy` from form strings. The byte model ignores the other values (kept in the
 * form so switching back restores them); full training leaves the LoRA settings out. Numbers
 * that do not parse are reported here, as the other fields' are.
 */
export function policyFromValues(values: FormValues): { policy: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const model = (values[POLICY_KEYS.model] ?? '').trim();
  if (!model) return { policy: { kind: 'byte' }, errors };
  const training = values[POLICY_KEYS.training] === 'full' ? 'full' : 'lora';
  // an unknown value is the schema's to refuse, with its message
  const precision = values[POLICY_KEYS.precision] || hfDefaults.precision;
  if (training === 'full') return { policy: { kind: 'hf', model, training, precision }, errors };
  const number = (key: string) => {
    const raw = (values[key] ?? '').trim();
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n)) errors[key] = 'Enter a number';
    return n;
  };
  const targets = (values[POLICY_KEYS.targets] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  return {
    policy: { kind: 'hf', model, training, precision, lora: { rank: number(POLICY_KEYS.rank), alpha: number(POLICY_KEYS.alpha), targetModules: targets } },
    errors,
  };
}

/** The checkbox order: LORA_MODULES', so a list reads the same however it was ticked. */
export const orderedTargets = (checked: Set<string>) => LORA_MODULES.filter((m) => checked.has(m));

/** A run's policy in words (core/run-config.ts): `model` is the registered model to link to (null for the byte model). */
export { describePolicy };
