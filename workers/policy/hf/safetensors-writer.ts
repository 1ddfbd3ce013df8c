import fs from 'node:fs/promises';
import type { SafetensorsDType } from './safetensors';

// Writes safetensors files in F32, F16 or BF16 (exports: a model keeps the dtype it was
// imported in). The layout is safetensors.ts's reader in reverse: 8-byte little-endian header
// length, the JSON header (padded with spaces so tensor data starts 8-byte aligned), then
// each tensor's little-endian bytes in header order. Tensors are written one at a time, so
// writing holds one tensor's narrowed copy, never the whole file.

export type TensorToWrite = { name: string; shape: number[]; dtype: SafetensorsDType; data: Float32Array };

const BYTES: Record<SafetensorsDType, number> = { F32: 4, F16: 2, BF16: 2 };

/** float32 → bfloat16 bits, rounding to nearest even (as torch's `.to(torch.bfloat16)`); NaN stays NaN. */
export function f32ToBf16Bits(x: number): number {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && u & 0x007fffff) return ((u >>> 16) | 0x0040) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** float32 → IEEE half bits, rounding to nearest even, with subnormals, overflow to infinity and NaN. */
export function f32ToF16Bits(x: number): number {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal: ±0
    const m = mant | 0x800000;
    const shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++; // a carry into the exponent is still right (up to infinity)
  return sign | h;
}

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
