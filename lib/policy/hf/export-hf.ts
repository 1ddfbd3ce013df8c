import fs from 'node:fs/promises';
import path from 'node:path';
import { MODEL_METADATA_FILES } from '@/core/models';
import { readHfConfig } from './model-dir';
import { openCheckpoint, type SafetensorsDType } from './safetensors';
import { writeSafetensorsFile, type TensorToWrite } from './safetensors-writer';
import { hfParamSpecs, loadHfWeights } from './weights';

/**
 * Export a model as a Hugging Face directory: the weights as one `model.safetensors` (a
 * sharded source is merged), each tensor in the dtype the source stored it in, and the
 * source's config and tokenizer files copied byte for byte. `weights` replaces the source's
 * values (a trained version, or LoRA merged into the base); without it the export holds the
 * source's own values, so f32/f16/bf16 round-trip exactly.
 */
export type HfExportResult = { dir: string; files: { path: string; size: number }[]; tensors: number; dtypes: Record<string, number> };

/** Refuse to write into a directory that already holds something: an export never mixes with other files. */
export async function prepareEmptyDir(out: string): Promise<void> {
  const existing = await fs.readdir(out).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
  if (existing.length)
    throw new Error(`${out} is not empty (${existing.slice(0, 3).join(', ')}${existing.length > 3 ? ', …' : ''}): export into a new or empty directory`);
  await fs.mkdir(out, { recursive: true });
}

export async function exportHfDirectory(o: { from: string; out: string; weights?: Map<string, Float32Array> }): Promise<HfExportResult> {
  const config = await readHfConfig(o.from);
  const source = await openCheckpoint(o.from);
  const weights = o.weights ?? (await loadHfWeights(o.from, config)).weights;
  const tensors: TensorToWrite[] = [];
  const dtypes: Record<string, number> = {};
  for (const s of hfParamSpecs(config)) {
    const data = weights.get(s.name);
    if (!data) throw new Error(`no values for tensor ${s.name} (the ${config.architecture} in ${o.from} needs it)`);
    const dtype: SafetensorsDType = source.where.get(s.name)?.tensors.get(s.name)?.dtype ?? 'F32';
    tensors.push({ name: s.name, shape: s.shape, dtype, data });
    dtypes[dtype] = (dtypes[dtype] ?? 0) + 1;
  }
  await prepareEmptyDir(o.out);
  await writeSafetensorsFile(path.join(o.out, 'model.safetensors'), tensors);
  for (const name of MODEL_METADATA_FILES) {
    await fs.copyFile(path.join(o.from, name), path.join(o.out, name)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  const files = [];
  for (const name of (await fs.readdir(o.out)).sort()) files.push({ path: name, size: (await fs.stat(path.join(o.out, name))).size });
  return { dir: o.out, files, tensors: tensors.length, dtypes };
}
