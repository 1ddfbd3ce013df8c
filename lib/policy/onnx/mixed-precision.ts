import { PRECISIONS, type Precision } from '@/core/models';
import type { Attr, Value } from './graph';
import * as o from './ops';

// Mixed precision as PyTorch's autocast does it for matrix products: weights stay float32
// (the master copy the optimizer updates), each Gemm / MatMul takes float16 or bfloat16
// operands cast inside the graph, and its result goes back to float32 for everything else
// (norms, softmax, RoPE, the residual stream, the loss). Autodiff's Cast rule makes the
// backward pass the mirror image: gradients of the products in half, cast to float32 at the
// weights.

export { PRECISIONS, type Precision };

/**
 * How a graph computes matrix products. `emulate` keeps the products in float32 but rounds
 * their operands and results through the half type: the numerics of half matrix units
 * (half operands, float32 accumulation, half result) where the execution provider has no
 * half kernels. onnxruntime's CPU provider has no bfloat16 Gemm at all, and computes a
 * float16 one in float32, inserting casts and folding ours away where it can (measured:
 * inference logits identical to float32).
 */
export type MatmulMode = { half?: 'float16' | 'bfloat16'; emulate?: boolean };

export const FLOAT32_MATMULS: MatmulMode = {};

/** The graph flavour for a precision on a provider: half kernels on CUDA, emulated on the CPU. */
export function matmulMode(precision: Precision, provider: 'cuda' | 'cpu'): MatmulMode {
  if (precision === 'fp32') return FLOAT32_MATMULS;
  return { half: precision === 'fp16' ? 'float16' : 'bfloat16', emulate: provider !== 'cuda' };
}

/** The mode's name in reports and graph keys: `fp32`, `fp16`, `bf16` or `bf16-emulated`. */
export function matmulModeName(m: MatmulMode): string {
  if (!m.half) return 'fp32';
  return `${m.half === 'float16' ? 'fp16' : 'bf16'}${m.emulate ? '-emulated' : ''}`;
}

/**
 * Builds matrix products under a mode. Operand casts are made once per value (a weight
 * used by several products, such as a tied embedding, is cast once).
 */
export class MixedMatmuls {
  private readonly casts = new Map<string, Value>();

  constructor(readonly mode: MatmulMode) {}

  /** The operand as the product takes it. */
  operand(v: Value): Value {
    const half = this.mode.half;
    if (!half || v.dtype !== 'float32') return v;
    let c = this.casts.get(v.name);
    if (!c) {
      c = this.mode.emulate ? o.cast(o.cast(v, half), 'float32') : o.cast(v, half);
      this.casts.set(v.name, c);
    }
    return c;
  }

  /** A product's result back in float32 (rounded through the half type when emulating). */
  result(y: Value): Value {
    const half = this.mode.half;
    if (!half) return y;
    return this.mode.emulate ? o.cast(o.cast(y, half), 'float32') : o.cast(y, 'float32');
  }

  /** ONNX Gemm on half operands; the output shape is given because rows may be a dynamic dim. */
  gemm(inputs: Value[], outShape: Value['shape'], attrs: Record<string, Attr>): Value {
    const ins = inputs.map((v) => this.operand(v));
    const y = ins[0]!.graph.node('Gemm', ins, [{ dtype: ins[0]!.dtype, shape: outShape }], attrs)[0]!;
    return this.result(y);
  }

  matmul(a: Value, b: Value): Value {
    return this.result(o.matmul(this.operand(a), this.operand(b)));
  }
}
