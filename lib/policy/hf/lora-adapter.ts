import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { checkLoraTensors, LORA_MODULES, type LoraAdapterConfig, type LoraTensor } from './export-peft';
import type { HfModelConfig } from './config';
import type { LoraConfig } from './lora';
import { readHeader, readTensorF32 } from './safetensors';

/**
 * A LoRA adapter as it travels between the trainer, the sampling policy and PEFT files:
 * the PEFT config and the A/B factors under PEFT's tensor names.
 */
export type LoraAdapter = { config: LoraAdapterConfig; tensors: Map<string, LoraTensor> };

/** The trainer's LoRA settings as PEFT's adapter config. */
export function adapterConfigOf(lora: LoraConfig, baseModelNameOrPath: string): LoraAdapterConfig {
  return { r: lora.rank, loraAlpha: lora.alpha, targetModules: [...lora.targetModules], baseModelNameOrPath };
}

/** PEFT's adapter config as the trainer's LoRA settings. */
export function loraConfigOf(c: LoraAdapterConfig): LoraConfig {
  return { rank: c.r, alpha: c.loraAlpha, targetModules: [...c.targetModules] };
}

// Only what our graphs and mergeLora compute is accepted: plain LoRA on the seven Llama
// projections. Anything else (rsLoRA, DoRA, per-layer ranks, extra saved modules) would be
// silently mis-applied, so it is refused naming the field.
const PeftConfigJson = z
  .object({
    peft_type: z.literal('LORA', { error: 'peft_type must be "LORA" (only LoRA adapters are supported)' }),
    r: z.number().int().positive(),
    lora_alpha: z.number().positive(),
    target_modules: z.array(z.enum(LORA_MODULES), {
      error: `target_modules must be a list of ${LORA_MODULES.join(', ')} (regex strings are not supported)`,
    }),
    base_model_name_or_path: z.string().nullish(),
    lora_dropout: z.number().min(0).max(1).default(0),
    use_rslora: z.literal(false, { error: 'rsLoRA scaling is not supported' }).optional(),
    use_dora: z.literal(false, { error: 'DoRA is not supported' }).optional(),
    fan_in_fan_out: z.literal(false, { error: 'only [out, in] Linear weights are supported' }).optional(),
    bias: z.literal('none', { error: 'adapters that train biases are not supported' }).optional(),
    modules_to_save: z.null({ error: 'adapters that save whole modules are not supported' }).optional(),
    rank_pattern: z
      .record(z.string(), z.unknown())
      .refine((o) => !Object.keys(o).length, 'per-module ranks are not supported')
      .optional(),
    alpha_pattern: z
      .record(z.string(), z.unknown())
      .refine((o) => !Object.keys(o).length, 'per-module alphas are not supported')
      .optional(),
  })
  .loose();

/**
 * Read a PEFT LoRA adapter: a directory holding `adapter_config.json` and
 * `adapter_model.safetensors`, or the safetensors file itself with its config beside it.
 * Factors are widened to float32; names, pairs and shapes are checked (against `base` too
 * when given).
 */
export async function readPeftAdapter(dirOrFile: string, base?: HfModelConfig): Promise<LoraAdapter> {
  const st = await fs.stat(dirOrFile).catch(() => undefined);
  if (!st) throw new Error(`${dirOrFile}: no such adapter (expected a PEFT adapter directory with adapter_config.json and adapter_model.safetensors)`);
  const dir = st.isDirectory() ? dirOrFile : path.dirname(dirOrFile);
  const weightsFile = st.isDirectory() ? path.join(dir, 'adapter_model.safetensors') : dirOrFile;
  const configFile = path.join(dir, 'adapter_config.json');
  const text = await fs.readFile(configFile, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new Error(`${configFile}: cannot read the adapter config (${e.code ?? e.message}); a PEFT adapter needs adapter_config.json`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${configFile}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = PeftConfigJson.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${configFile}: ${i.path.join('.') || 'config'}: ${i.message}`);
  }
  const j = parsed.data;
  const config: LoraAdapterConfig = {
    r: j.r,
    loraAlpha: j.lora_alpha,
    targetModules: j.target_modules,
    baseModelNameOrPath: j.base_model_name_or_path || 'unknown',
    loraDropout: j.lora_dropout,
  };
  const header = await readHeader(weightsFile).catch((e: Error) => {
    throw new Error(`${weightsFile}: cannot read the adapter weights (${e.message})`);
  });
  const tensors = new Map<string, LoraTensor>();
  const fh = await fs.open(weightsFile, 'r');
  try {
    for (const [name, e] of header.tensors) tensors.set(name, { shape: e.shape, data: await readTensorF32(header, name, fh) });
  } finally {
    await fh.close();
  }
  try {
    checkLoraTensors(config, tensors, base);
  } catch (e) {
    throw new Error(`${weightsFile}: ${(e as Error).message}`);
  }
  return { config, tensors };
}
