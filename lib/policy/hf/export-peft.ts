import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LORA_MODULES, type LoraModule } from '@/core/models';
import type { HfModelConfig } from './config';
import { prepareEmptyDir } from './export-hf';
import type { SafetensorsDType } from './safetensors';
import { writeSafetensorsFile } from './safetensors-writer';
import { hfParamSpecs } from './weights';

/**
 * LoRA adapters in PEFT's format, so transformers (`PeftModel.from_pretrained`) and vLLM load
 * them: `adapter_config.json` and `adapter_model.safetensors` with PEFT's tensor names,
 * `base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight` ([r, in]) and `…lora_B.weight`
 * ([out, r]). The adapted weight is W + B·A·(lora_alpha / r) (`mergeLora`, PEFT's merge without
 * rsLoRA or DoRA). The trainer hands its tensors over under these names.
 */

export { LORA_MODULES, type LoraModule };

export const LoraAdapterConfig = z.object({
  r: z.number().int().positive(),
  loraAlpha: z.number().positive(),
  targetModules: z.array(z.enum(LORA_MODULES)).min(1),
  /** the base model's hub id or path, as PEFT records it */
  baseModelNameOrPath: z.string().min(1),
  loraDropout: z.number().min(0).max(1).default(0),
});
export type LoraAdapterConfig = z.input<typeof LoraAdapterConfig>;

export type LoraTensor = { shape: number[]; data: Float32Array };

const sub = (m: LoraModule) => (m === 'gate_proj' || m === 'up_proj' || m === 'down_proj' ? 'mlp' : 'self_attn');

/** PEFT's name for layer `layer`'s `module` factor A or B. */
export const peftTensorName = (layer: number, module: LoraModule, factor: 'A' | 'B') =>
  `base_model.model.model.layers.${layer}.${sub(module)}.${module}.lora_${factor}.weight`;

const NAME = /^base_model\.model\.model\.layers\.(\d+)\.(self_attn|mlp)\.([a-z_]+)\.lora_(A|B)\.weight$/;

/** The base checkpoint weight a PEFT tensor adapts, e.g. `model.layers.0.self_attn.q_proj.weight`. */
export function baseWeightOf(peftName: string): { weight: string; module: LoraModule; factor: 'A' | 'B' } {
  const m = NAME.exec(peftName);
  const mod = m?.[3] as LoraModule | undefined;
  if (!m || !mod || !LORA_MODULES.includes(mod) || sub(mod) !== m[2])
    throw new Error(`${peftName} is not a PEFT LoRA tensor name (expected base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight and the like)`);
  return { weight: `model.layers.${m[1]}.${m[2]}.${mod}.weight`, module: mod, factor: m[4] as 'A' | 'B' };
}

/**
 * Check an adapter against its config and, when given, the base model's shapes: every name is
 * PEFT's, every module is a target, every A has its B, A is [r, in] and B is [out, r].
 */
export function checkLoraTensors(config: LoraAdapterConfig, tensors: Map<string, LoraTensor>, base?: HfModelConfig): void {
  const c = LoraAdapterConfig.parse(config);
  const baseShapes = base ? new Map(hfParamSpecs(base).map((s) => [s.name, s.shape])) : undefined;
  if (!tensors.size) throw new Error('the adapter has no tensors');
  for (const [name, t] of tensors) {
    const { weight, module: mod, factor } = baseWeightOf(name);
    if (!c.targetModules.includes(mod)) throw new Error(`${name}: ${mod} is not in target_modules (${c.targetModules.join(', ')})`);
    const other = name.replace(/lora_[AB]\.weight$/, `lora_${factor === 'A' ? 'B' : 'A'}.weight`);
    if (!tensors.has(other)) throw new Error(`${name} has no ${other}`);
    if (t.shape.length !== 2 || t.shape[0]! * t.shape[1]! !== t.data.length)
      throw new Error(`${name}: shape [${t.shape.join(', ')}] does not match its ${t.data.length} values`);
    if (factor === 'A' && t.shape[0] !== c.r) throw new Error(`${name}: lora_A must be [r=${c.r}, in], got [${t.shape.join(', ')}]`);
    if (factor === 'B' && t.shape[1] !== c.r) throw new Error(`${name}: lora_B must be [out, r=${c.r}], got [${t.shape.join(', ')}]`);
    const ws = baseShapes?.get(weight);
    if (baseShapes && !ws) throw new Error(`${name}: the base model has no ${weight}`);
    if (ws && (factor === 'A' ? t.shape[1] !== ws[1] : t.shape[0] !== ws[0]))
      throw new Error(`${name}: shape [${t.shape.join(', ')}] does not fit ${weight} [${ws.join(', ')}] (A is [r, in], B is [out, r])`);
  }
}

/** PEFT's adapter_config.json for a LoRA adapter on a causal LM. */
export function peftAdapterConfigJson(config: LoraAdapterConfig): Record<string, unknown> {
  const c = LoraAdapterConfig.parse(config);
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: c.baseModelNameOrPath,
    r: c.r,
    lora_alpha: c.loraAlpha,
    lora_dropout: c.loraDropout,
    target_modules: c.targetModules,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: {},
    alpha_pattern: {},
    use_rslora: false,
    use_dora: false,
    revision: null,
  };
}

/** Write a LoRA adapter directory (`adapter_config.json`, `adapter_model.safetensors`) in PEFT's format. */
export async function writePeftAdapter(
  out: string,
  o: { config: LoraAdapterConfig; tensors: Map<string, LoraTensor>; base?: HfModelConfig; dtype?: SafetensorsDType },
): Promise<{ dir: string; files: { path: string; size: number }[]; tensors: number }> {
  checkLoraTensors(o.config, o.tensors, o.base);
  await prepareEmptyDir(out);
  const names = [...o.tensors.keys()].sort();
  await writeSafetensorsFile(
    path.join(out, 'adapter_model.safetensors'),
    names.map((name) => ({ name, shape: o.tensors.get(name)!.shape, dtype: o.dtype ?? 'F32', data: o.tensors.get(name)!.data })),
  );
  await fs.writeFile(path.join(out, 'adapter_config.json'), JSON.stringify(peftAdapterConfigJson(o.config), null, 2) + '\n');
  const files = [];
  for (const name of ['adapter_config.json', 'adapter_model.safetensors']) files.push({ path: name, size: (await fs.stat(path.join(out, name))).size });
  return { dir: out, files, tensors: names.length };
}

/**
 * The base weights with the adapter merged in, W + B·A·(lora_alpha / r), in float32 (sums in
 * float64): what `--format hf` writes for a LoRA-trained model. Unadapted weights are shared.
 */
export function mergeLora(
  base: Map<string, Float32Array>,
  config: LoraAdapterConfig,
  tensors: Map<string, LoraTensor>,
  baseConfig?: HfModelConfig,
): Map<string, Float32Array> {
  checkLoraTensors(config, tensors, baseConfig);
  const c = LoraAdapterConfig.parse(config);
  const scale = c.loraAlpha / c.r;
  const merged = new Map(base);
  for (const [name, A] of tensors) {
    const { weight, factor } = baseWeightOf(name);
    if (factor !== 'A') continue;
    const B = tensors.get(name.replace(/lora_A\.weight$/, 'lora_B.weight'))!;
    const W = base.get(weight);
    if (!W) throw new Error(`${name}: the base weights have no ${weight}`);
    const [r, inDim] = A.shape as [number, number];
    const outDim = B.shape[0]!;
    if (W.length !== outDim * inDim) throw new Error(`${name}: ${weight} holds ${W.length} values, not [${outDim}, ${inDim}]`);
    const out = new Float32Array(W.length);
    for (let o = 0; o < outDim; o++) {
      for (let i = 0; i < inDim; i++) {
        let s = 0;
        for (let k = 0; k < r; k++) s += B.data[o * r + k]! * A.data[k * inDim + i]!;
        out[o * inDim + i] = W[o * inDim + i]! + s * scale;
      }
    }
    merged.set(weight, out);
  }
  return merged;
}
