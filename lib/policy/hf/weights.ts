import fs from 'node:fs/promises';
import type { HfModelConfig } from './config';
import { openCheckpoint, readTensorF32, type TensorSource } from './safetensors';

/**
 * One parameter under its Hugging Face name and shape. Linear weights stay in PyTorch's
 * [out, in] layout (the graphs multiply with Gemm transB), so the names, shapes and bytes
 * are the checkpoint's own and an export writes them back unchanged.
 */
export type HfParamSpec = { name: string; shape: number[] };

export function hfParamSpecs(c: HfModelConfig): HfParamSpec[] {
  const d = c.hiddenSize;
  const q = c.nHeads * c.headDim;
  const kv = c.nKvHeads * c.headDim;
  const I = c.intermediateSize;
  const specs: HfParamSpec[] = [{ name: 'model.embed_tokens.weight', shape: [c.vocabSize, d] }];
  const linear = (name: string, out: number, inp: number, bias: boolean) => {
    specs.push({ name: `${name}.weight`, shape: [out, inp] });
    if (bias) specs.push({ name: `${name}.bias`, shape: [out] });
  };
  for (let l = 0; l < c.nLayers; l++) {
    const p = `model.layers.${l}`;
    specs.push({ name: `${p}.input_layernorm.weight`, shape: [d] });
    linear(`${p}.self_attn.q_proj`, q, d, c.qkvBias);
    linear(`${p}.self_attn.k_proj`, kv, d, c.qkvBias);
    linear(`${p}.self_attn.v_proj`, kv, d, c.qkvBias);
    linear(`${p}.self_attn.o_proj`, d, q, c.oBias);
    if (c.qkNorm) specs.push({ name: `${p}.self_attn.q_norm.weight`, shape: [c.headDim] }, { name: `${p}.self_attn.k_norm.weight`, shape: [c.headDim] });
    specs.push({ name: `${p}.post_attention_layernorm.weight`, shape: [d] });
    linear(`${p}.mlp.gate_proj`, I, d, c.mlpBias);
    linear(`${p}.mlp.up_proj`, I, d, c.mlpBias);
    linear(`${p}.mlp.down_proj`, d, I, c.mlpBias);
  }
  specs.push({ name: 'model.norm.weight', shape: [d] });
  if (!c.tieWordEmbeddings) specs.push({ name: 'lm_head.weight', shape: [c.vocabSize, d] });
  return specs;
}

export function countHfParams(c: HfModelConfig): number {
  return hfParamSpecs(c).reduce((n, s) => n + s.shape.reduce((p, x) => p * x, 1), 0);
}

export type LoadedWeights = { weights: Map<string, Float32Array>; dtypes: Record<string, number>; source: TensorSource };

/**
 * Read every parameter the config calls for, as float32 (f16/bf16 widened). Extra tensors
 * (e.g. an lm_head.weight next to tied embeddings, which transformers ignores too) are
 * skipped; a missing tensor or a shape that disagrees with config.json is an error naming
 * the file and the tensor.
 */
export async function loadHfWeights(dir: string, c: HfModelConfig): Promise<LoadedWeights> {
  const { source, specs } = await checkedSource(dir, c);
  const weights = new Map<string, Float32Array>();
  const dtypes: Record<string, number> = {};
  for (const file of source.files) {
    const fh = await fs.open(file.file, 'r');
    try {
      for (const s of specs) {
        if (source.where.get(s.name) !== file) continue;
        weights.set(s.name, await readTensorF32(file, s.name, fh));
        const dt = file.tensors.get(s.name)!.dtype;
        dtypes[dt] = (dtypes[dt] ?? 0) + 1;
      }
    } finally {
      await fh.close();
    }
  }
  return { weights, dtypes, source };
}

/** What loadHfWeights checks (every tensor present, shapes as config.json implies), from the headers alone: no weight data is read. */
export async function checkHfWeights(dir: string, c: HfModelConfig): Promise<{ dtypes: Record<string, number>; source: TensorSource }> {
  const { source, specs } = await checkedSource(dir, c);
  const dtypes: Record<string, number> = {};
  for (const s of specs) {
    const dt = source.where.get(s.name)!.tensors.get(s.name)!.dtype;
    dtypes[dt] = (dtypes[dt] ?? 0) + 1;
  }
  return { dtypes, source };
}

async function checkedSource(dir: string, c: HfModelConfig): Promise<{ source: TensorSource; specs: HfParamSpec[] }> {
  const source = await openCheckpoint(dir);
  const specs = hfParamSpecs(c);
  for (const s of specs) {
    const h = source.where.get(s.name);
    if (!h) {
      const files = source.files.map((f) => f.file).join(', ');
      throw new Error(`${files}: missing tensor ${s.name} (config.json's ${c.architecture} with these settings needs it)`);
    }
    const e = h.tensors.get(s.name)!;
    if (e.shape.join(',') !== s.shape.join(','))
      throw new Error(`${h.file}: tensor ${s.name} has shape [${e.shape.join(', ')}] but config.json implies [${s.shape.join(', ')}]`);
  }
  return { source, specs };
}
