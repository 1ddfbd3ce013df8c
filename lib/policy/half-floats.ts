// 16-bit float formats as bit patterns in Uint16Arrays: checkpoints store f16 and bf16, and
// mixed-precision graphs carry half constants. Narrowing rounds to nearest even, as torch does.

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

/** IEEE 754 half → float (subnormals, infinities and NaN included). */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** bfloat16 bits → float (exact: bfloat16 is float32's top half). */
export function bf16ToF32(h: number): number {
  return new Float32Array(new Uint32Array([h << 16]).buffer)[0]!;
}
