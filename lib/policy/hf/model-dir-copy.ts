import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { isWeightFile, MODEL_METADATA_FILES, MODEL_METADATA_MAX_BYTES, type ModelFile } from '@/core/models';
import { ModelFileError, modelDirContainment, openModelFile, readModelText, type OpenedModelFile } from './model-file';
import { readHeader } from './safetensors';

/**
 * Copy the files a registered model keeps (the metadata files present, and `model.safetensors`
 * or the index with its shards) from an untrusted directory into `dest`, each opened as
 * model-file.ts opens (no link out of the directory, regular files only, metadata size-capped)
 * and streamed, never held whole in memory. Everything after (validation, hashing, publishing)
 * reads the copy: files this process wrote, which nothing else can swap or relink meanwhile.
 */
export async function copyModelDir(src: string, dest: string): Promise<ModelFile[]> {
  const inside = await modelDirContainment(src);
  const names: string[] = [];
  const indexText = await readModelText(src, 'model.safetensors.index.json', MODEL_METADATA_MAX_BYTES['model.safetensors.index.json'], inside);
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
  const opened: { name: string; f: OpenedModelFile; cap: number | undefined }[] = [];
  try {
    for (const name of names) {
      const cap = (MODEL_METADATA_MAX_BYTES as Record<string, number>)[name];
      const f = await openModelFile(src, name, { maxBytes: cap, inside });
      if (!f) {
        if (isWeightFile(name))
          throw new ModelFileError(
            name === 'model.safetensors'
              ? `${src}: no weights (expected model.safetensors, or model.safetensors.index.json with model-*.safetensors shards)`
              : `${path.join(src, 'model.safetensors.index.json')} names shard ${name}, which is missing from ${src}`,
          );
        continue;
      }
      opened.push({ name, f, cap });
      // a weight file holds exactly what its header declares: a sparse or growing file cannot fill the disk before the check
      if (name.endsWith('.safetensors')) {
        const h = await readHeader(f.file, f.fh);
        const declared = h.dataStart + Math.max(0, ...[...h.tensors.values()].map((t) => t.end));
        if (declared !== f.size)
          throw new ModelFileError(`${f.file} is ${f.size} bytes but its header declares ${declared}; a safetensors file holds exactly its tensors`);
      }
    }
    // the copy and the artifact store's copy must fit: refuse now rather than fill the disk midway
    const total = opened.reduce((n, o) => n + o.f.size, 0);
    const st = await fs.statfs(dest);
    const free = st.bavail * st.bsize;
    if (free < 2 * total)
      throw new ModelFileError(
        `importing ${src} needs about ${2 * total} bytes free under ${dest} (a staging copy and the artifact store's), and ${free} are; free some space or import elsewhere`,
      );
    const files: ModelFile[] = [];
    for (const { name, f, cap } of opened) {
      const hash = createHash('sha256');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > (cap ?? f.size)) return cb(new ModelFileError(`${f.file} grew while it was copied; refusing it (import it again once it is complete)`));
          hash.update(chunk);
          cb(null, chunk);
        },
      });
      await pipeline(f.fh.createReadStream({ autoClose: false, start: 0 }), count, createWriteStream(path.join(dest, name), { flags: 'wx', mode: 0o600 }));
      files.push({ path: name, sha256: hash.digest('hex'), size });
    }
    return files;
  } finally {
    for (const o of opened) await o.f.fh.close();
  }
}
