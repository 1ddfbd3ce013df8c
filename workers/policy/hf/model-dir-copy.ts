import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { isWeightFile, MODEL_METADATA_FILES, MODEL_METADATA_MAX_BYTES, type ModelFile } from '@/core/models';
import { ModelFileError, openModelFile, readModelText } from './model-file';

/**
 * Copy the files a registered model keeps (the metadata files present, and `model.safetensors`
 * or the index with its shards) from an untrusted directory into `dest`, each opened as
 * model-file.ts opens (no link out of the directory, regular files only, metadata size-capped)
 * and streamed, never held whole in memory. Everything after (validation, hashing, publishing)
 * reads the copy: files this process wrote, which nothing else can swap or relink meanwhile.
 */
export async function copyModelDir(src: string, dest: string): Promise<ModelFile[]> {
  const names: string[] = [];
  const indexText = await readModelText(src, 'model.safetensors.index.json', MODEL_METADATA_MAX_BYTES['model.safetensors.index.json']);
  if (indexText !== undefined) {
    let map: Record<string, string>;
    try {
      map = z.object({ weight_map: z.record(z.string(), z.string()) }).parse(JSON.parse(indexText)).weight_map;
    } catch (e) {
      throw new ModelFileError(
        `${path.join(src, 'model.safetensors.index.json')}: invalid index (${e instanceof z.ZodError ? e.issues[0]?.message : (e as Error).message}); expected {"weight_map": {tensor: shard file}}`,
      );
    }
    const shards = [...new Set(Object.values(map))].sort();
    for (const s of shards)
      if (!isWeightFile(s) || s === 'model.safetensors.index.json')
        throw new ModelFileError(
          `${path.join(src, 'model.safetensors.index.json')} names shard ${JSON.stringify(s)}; shards are files named model-*.safetensors`,
        );
    names.push('model.safetensors.index.json', ...shards);
  } else names.push('model.safetensors');
  for (const n of MODEL_METADATA_FILES) names.push(n);
  const files: ModelFile[] = [];
  for (const name of names) {
    const cap = (MODEL_METADATA_MAX_BYTES as Record<string, number>)[name];
    const f = await openModelFile(src, name, { maxBytes: cap });
    if (!f) {
      if (isWeightFile(name))
        throw new ModelFileError(
          name === 'model.safetensors'
            ? `${src}: no weights (expected model.safetensors, or model.safetensors.index.json with model-*.safetensors shards)`
            : `${path.join(src, 'model.safetensors.index.json')} names shard ${name}, which is missing from ${src}`,
        );
      continue;
    }
    try {
      const hash = createHash('sha256');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (cap !== undefined && size > cap) return cb(new ModelFileError(`${f.file} grew past ${cap} bytes while it was copied; refusing it`));
          hash.update(chunk);
          cb(null, chunk);
        },
      });
      await pipeline(f.fh.createReadStream({ autoClose: false }), count, createWriteStream(path.join(dest, name), { flags: 'wx', mode: 0o600 }));
      files.push({ path: name, sha256: hash.digest('hex'), size });
    } finally {
      await f.fh.close();
    }
  }
  return files;
}
