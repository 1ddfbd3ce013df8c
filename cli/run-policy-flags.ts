import { LORA_MODULES, PRECISIONS } from '@/core/models';
import { describePolicy, type PolicyChoice } from '@/core/run-config';
import { CliError } from './args';

/** `runs create`'s policy options (issue 15); absent, a run trains the built-in byte model. */
export const policyOptions = {
  model: { type: 'string' },
  training: { type: 'string' },
  precision: { type: 'string' },
  'lora-rank': { type: 'string' },
  'lora-alpha': { type: 'string' },
  'lora-targets': { type: 'string' },
} as const;

export const policyUsage =
  '  --model NAME  train a registered Hugging Face model (`crucible models list`) instead of the built-in byte model;\n' +
  '    --training lora|full (default lora), and for LoRA --lora-rank N (default 8) --lora-alpha X (default 16)\n' +
  `    --lora-targets q_proj,v_proj (the default; of ${LORA_MODULES.join(', ')}). Under PPO a value head is trained with the model.\n` +
  '    --precision fp32|fp16|bf16 (default fp32): fp16/bf16 keep float32 master weights and run matrix products in half (emulated on the CPU).';

const LORA_FLAGS = ['lora-rank', 'lora-alpha', 'lora-targets'] as const;

function numberFlag(values: Record<string, unknown>, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(n)) throw new CliError(`--${name} must be a number, got "${String(raw)}"`);
  return n;
}

/**
 * The run config's `policy` from the flags, or undefined when none is given (the config's own,
 * else the byte model). Ranges (rank 1–256, alpha > 0) are the schema's to check, so the API's
 * message names them; what the flags cannot mean together is refused here.
 */
export function policyFromFlags(values: Record<string, unknown>, configPolicy: unknown): Record<string, unknown> | undefined {
  const model = values.model as string | undefined;
  const training = values.training as string | undefined;
  const precision = values.precision as string | undefined;
  const loraGiven = LORA_FLAGS.filter((f) => values[f] !== undefined);
  if (model === undefined) {
    const given = [...(training !== undefined ? ['training'] : []), ...(precision !== undefined ? ['precision'] : []), ...loraGiven];
    if (given.length)
      throw new CliError(
        `${given.map((f) => `--${f}`).join(', ')} ${given.length > 1 ? 'apply' : 'applies'} to a registered model: add --model NAME (see \`crucible models list\`)`,
      );
    return undefined;
  }
  if (configPolicy !== undefined) throw new CliError('the policy is given twice, by --model and in --config/--set policy; give it one way');
  if (!model.trim()) throw new CliError('--model needs a registered model name (see `crucible models list`)');
  if (training !== undefined && training !== 'full' && training !== 'lora') throw new CliError(`--training must be full or lora, got "${training}"`);
  if (precision !== undefined && !(PRECISIONS as readonly string[]).includes(precision))
    throw new CliError(`--precision must be ${PRECISIONS.join(', ')}, got "${precision}"`);
  const withPrecision = precision !== undefined ? { precision } : {};
  if (training === 'full') {
    if (loraGiven.length)
      throw new CliError(`${loraGiven.map((f) => `--${f}`).join(', ')} cannot be used with --training full: LoRA settings need --training lora`);
    return { kind: 'hf', model, training, ...withPrecision };
  }
  const lora: Record<string, unknown> = {};
  const rank = numberFlag(values, 'lora-rank');
  if (rank !== undefined) lora.rank = rank;
  const alpha = numberFlag(values, 'lora-alpha');
  if (alpha !== undefined) lora.alpha = alpha;
  if (values['lora-targets'] !== undefined) {
    const targets = String(values['lora-targets'])
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const unknown = targets.filter((t) => !(LORA_MODULES as readonly string[]).includes(t));
    if (unknown.length) throw new CliError(`--lora-targets: unknown module ${unknown.map((t) => `"${t}"`).join(', ')}; choose from ${LORA_MODULES.join(', ')}`);
    lora.targetModules = targets;
  }
  return { kind: 'hf', model, training: 'lora', ...withPrecision, ...(Object.keys(lora).length ? { lora } : {}) };
}

/** The policy in words for `runs create`'s text output. */
export function policyText(policy: PolicyChoice | undefined): string {
  const d = describePolicy(policy);
  return d.model ? `${d.model} · ${d.training}` : d.training;
}
