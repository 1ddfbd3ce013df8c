import fs from 'node:fs/promises';
import { f32ToBf16Bits, f32ToF16Bits } from '../half-floats';
import type { SafetensorsDType } from './safetensors';

// Writes safetensors files in F32, F16 or BF16 (exports: a model keeps the dtype it was
// imported in). The layout is safetensors.ts's reader in reverse: 8-byte little-endian header
// length, the JSON header (padded with spaces so tensor data starts 8-byte aligned), then
// each tensor's little-endian bytes in header order. Tensors are written one at a time, so
// writing holds one tensor's narrowed copy, never the whole file.

export type TensorToWrite = { name: string; shape: number[]; dtype: SafetensorsDType; data: Float32Array };

const BYTES: Record<SafetensorsDType, number> = { F32: 4, F16: 2, BF16: 2 };

/** One tensor's bytes in its dtype. */
export function encodeTensor(t: TensorToWrite): Uint8Array {
  if (t.dtype === 'F32') return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out = new Uint16Array(t.data.length);
  const narrow = t.dtype === 'BF16' ? f32ToBf16Bits : f32ToF16Bits;
  for (let i = 0; i < t.data.length; i++) out[i] = narrow(t.data[i]!);
  return new Uint8Array(out.buffer);
}

/**
 * Write `tensors` as one safetensors file, each in its own dtype. Refuses a tensor whose data
 * does not fill its shape, or a repeated name, before writing anything.
 */
export async function writeSafetensorsFile(file: string, tensors: TensorToWrite[], metadata: Record<string, string> = { format: 'pt' }): Promise<void> {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((p, d) => p * d, 1);
    if (count !== t.data.length) throw new Error(`tensor ${t.name}: shape [${t.shape.join(', ')}] holds ${count} values but ${t.data.length} were given`);
    if (t.name in header) throw new Error(`tensor ${t.name} is given twice`);
    const bytes = count * BYTES[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  const fh = await fs.open(file, 'w');
  try {
    await fh.write(len);
    await fh.write(Buffer.from(json));
    for (const t of tensors) await fh.write(encodeTensor(t));
  } finally {
    await fh.close();
  }
}
