import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { MODEL_METADATA_MAX_BYTES } from '@/core/models';
import { f16ToF32 } from '../half-floats';
import { openModelFile, readModelText } from './model-file';

// The safetensors format: 8 bytes little-endian header length N, N bytes of JSON
// ({name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?}), then the raw
// little-endian tensor bytes (offsets are relative to the end of the header). No npm
// package reads it without pulling in a hub client or a browser runtime, and it is this
// small, so it is parsed here.

export type SafetensorsDType = 'F32' | 'F16' | 'BF16';
const SUPPORTED: SafetensorsDType[] = ['F32', 'F16', 'BF16'];
const BYTES: Record<SafetensorsDType, number> = { F32: 4, F16: 2, BF16: 2 };

const Entry = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});
export type TensorEntry = { name: string; dtype: SafetensorsDType; shape: number[]; begin: number; end: number };

/** Where one file's tensors are, without reading their data. */
export type SafetensorsHeader = { file: string; dataStart: number; tensors: Map<string, TensorEntry>; metadata: Record<string, string> };

const MAX_HEADER = 100 * 1024 * 1024;

/** The header of `file` (read through `opened` when the caller holds it open: it is left open). */
export async function readHeader(file: string, opened?: fs.FileHandle): Promise<SafetensorsHeader> {
  const fh =
    opened ??
    (await fs.open(file, 'r').catch((e: NodeJS.ErrnoException) => {
      throw new Error(`${file}: cannot open (${e.code ?? e.message})`);
    }));
  try {
    const size = (await fh.stat()).size;
    const lenBuf = Buffer.alloc(8);
    if (size < 8 || (await fh.read(lenBuf, 0, 8, 0)).bytesRead < 8) throw new Error(`${file}: not a safetensors file (shorter than its 8-byte header length)`);
    const n = Number(lenBuf.readBigUInt64LE(0));
    if (n > MAX_HEADER || 8 + n > size) throw new Error(`${file}: not a safetensors file (header length ${n} does not fit the file of ${size} bytes)`);
    const json = Buffer.alloc(n);
    await fh.read(json, 0, n, 8);
    let parsed: unknown;
    try {
      parsed = JSON.parse(json.toString('utf8'));
    } catch {
      throw new Error(`${file}: safetensors header is not valid JSON`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file}: safetensors header is not a JSON object`);
    const dataStart = 8 + n;
    const tensors = new Map<string, TensorEntry>();
    let metadata: Record<string, string> = {};
    for (const [name, raw] of Object.entries(parsed as Record<string, unknown>)) {
      if (name === '__metadata__') {
        metadata = z.record(z.string(), z.string()).parse(raw);
        continue;
      }
      const e = Entry.safeParse(raw);
      if (!e.success) throw new Error(`${file}: tensor ${name} has an invalid header entry (${e.error.issues[0]?.message})`);
      const {
        dtype,
        shape,
        data_offsets: [begin, end],
      } = e.data;
      if (!SUPPORTED.includes(dtype as SafetensorsDType))
        throw new Error(`${file}: tensor ${name} has dtype ${dtype}; supported dtypes are ${SUPPORTED.join(', ')} (quantized checkpoints are not supported)`);
      const count = shape.reduce((p, d) => p * d, 1);
      if (end - begin !== count * BYTES[dtype as SafetensorsDType] || dataStart + end > size)
        throw new Error(
          `${file}: tensor ${name} (${dtype} [${shape.join(', ')}]) has data offsets [${begin}, ${end}] that do not match its shape or the file size`,
        );
      tensors.set(name, { name, dtype: dtype as SafetensorsDType, shape, begin, end });
    }
    return { file, dataStart, tensors, metadata };
  } finally {
    if (!opened) await fh.close();
  }
}

/**
 * Read one tensor as float32 (f16 and bf16 widen exactly). Reads straight from the file into
 * the destination buffer, so loading a checkpoint holds each tensor once plus one tensor's
 * raw bytes, never the whole file.
 */
export async function readTensorF32(h: SafetensorsHeader, name: string, fh?: fs.FileHandle): Promise<Float32Array> {
  const e = h.tensors.get(name);
  if (!e) throw new Error(`${h.file}: has no tensor ${name}`);
  const own = !fh;
  const handle = fh ?? (await fs.open(h.file, 'r'));
  try {
    const count = (e.end - e.begin) / BYTES[e.dtype];
    const out = new Float32Array(count);
    if (e.dtype === 'F32') {
      await readFully(handle, new Uint8Array(out.buffer), h.dataStart + e.begin);
      return out;
    }
    const half = new Uint16Array(count);
    await readFully(handle, new Uint8Array(half.buffer), h.dataStart + e.begin);
    if (e.dtype === 'BF16') {
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < count; i++) bits[i] = half[i]! << 16;
    } else {
      for (let i = 0; i < count; i++) out[i] = f16ToF32(half[i]!);
    }
    return out;
  } finally {
    if (own) await handle.close();
  }
}

async function readFully(fh: fs.FileHandle, dst: Uint8Array, position: number) {
  let off = 0;
  while (off < dst.length) {
    const { bytesRead } = await fh.read(dst, off, dst.length - off, position + off);
    if (bytesRead === 0) throw new Error('unexpected end of file');
    off += bytesRead;
  }
}

/**
 * A checkpoint's tensors across one file or shards: `model.safetensors`, or
 * `model.safetensors.index.json` whose `weight_map` names each tensor's shard.
 */
export type TensorSource = { files: SafetensorsHeader[]; where: Map<string, SafetensorsHeader> };

const IndexFile = z.object({ weight_map: z.record(z.string(), z.string()) });

export async function openCheckpoint(dir: string): Promise<TensorSource> {
  const single = path.join(dir, 'model.safetensors');
  const index = path.join(dir, 'model.safetensors.index.json');
  // each weight file is checked as model-file.ts checks (resolves inside the directory, a regular file) before its header is read
  const has = async (name: string) => {
    const f = await openModelFile(dir, name);
    await f?.fh.close();
    return !!f;
  };
  const indexText = await readModelText(dir, 'model.safetensors.index.json', MODEL_METADATA_MAX_BYTES['model.safetensors.index.json']);
  if (indexText !== undefined) {
    let parsed;
    try {
      parsed = IndexFile.parse(JSON.parse(indexText));
    } catch (e) {
      throw new Error(
        `${index}: invalid index (${e instanceof z.ZodError ? e.issues[0]?.message : (e as Error).message}); expected {"weight_map": {tensor: shard file}}`,
      );
    }
    const shards = [...new Set(Object.values(parsed.weight_map))];
    for (const s of shards) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s)) throw new Error(`${index}: shard name ${JSON.stringify(s)} must be a file name in ${dir}`);
      if (!(await has(s))) throw new Error(`${index} names shard ${s}, which is missing from ${dir}`);
    }
    const headers = new Map<string, SafetensorsHeader>();
    for (const s of shards) headers.set(s, await readHeader(path.join(dir, s)));
    const where = new Map<string, SafetensorsHeader>();
    for (const [name, shard] of Object.entries(parsed.weight_map)) {
      const h = headers.get(shard)!;
      if (!h.tensors.has(name)) throw new Error(`${index} puts tensor ${name} in ${shard}, which does not contain it`);
      where.set(name, h);
    }
    return { files: [...headers.values()], where };
  }
  if (await has('model.safetensors')) {
    const h = await readHeader(single);
    return { files: [h], where: new Map([...h.tensors.keys()].map((n) => [n, h])) };
  }
  throw new Error(`${dir}: no weights (expected model.safetensors, or model.safetensors.index.json with model-*.safetensors shards)`);
}

/** Write float32 tensors as one safetensors file (tests and exports). */
export async function writeSafetensors(
  file: string,
  tensors: Map<string, { shape: number[]; data: Float32Array }>,
  metadata: Record<string, string> = { format: 'pt' },
) {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const [name, t] of tensors) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8); // keep tensor data 8-byte aligned
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  const parts = [len, Buffer.from(json), ...[...tensors.values()].map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))];
  await fs.writeFile(file, Buffer.concat(parts));
}
