import { describe, expect, it } from 'vitest';
import type { DType, Value } from './graph';
import * as o from './ops';
import { gradCheck, type CheckInput } from './gradcheck';
import { linear, rmsNorm } from '../hf/forward';

type Case = { name: string; dtype?: DType; inputs: Record<string, CheckInput>; build: (v: Record<string, Value>) => Value };

const x23 = { shape: [2, 3] };
const x234 = { shape: [2, 3, 4] };

// Each case checks one op's gradient rule (plus broadcasting) against central differences.
// float64 where onnxruntime's CPU kernels support double, float32 otherwise.
const cases: Case[] = [
  { name: 'Add (broadcast)', inputs: { a: x234, b: { shape: [4] } }, build: (v) => o.add(v.a!, v.b!) },
  { name: 'Sub (broadcast)', inputs: { a: { shape: [3, 1] }, b: x234 }, build: (v) => o.sub(v.a!, v.b!) },
  { name: 'Mul (broadcast)', inputs: { a: x234, b: { shape: [2, 1, 4] } }, build: (v) => o.mul(v.a!, v.b!) },
  { name: 'Div', inputs: { a: x234, b: { shape: [3, 4], positive: true } }, build: (v) => o.div(v.a!, v.b!) },
  { name: 'Neg', inputs: { a: x23 }, build: (v) => o.neg(v.a!) },
  { name: 'MatMul 3D x 2D', inputs: { a: x234, b: { shape: [4, 5] } }, build: (v) => o.matmul(v.a!, v.b!) },
  { name: 'MatMul batched 4D', inputs: { a: { shape: [2, 2, 3, 4] }, b: { shape: [2, 2, 4, 3] } }, build: (v) => o.matmul(v.a!, v.b!) },
  {
    name: 'Gemm transA transB + C',
    inputs: { a: { shape: [4, 3] }, b: { shape: [5, 4] }, c: { shape: [5] } },
    build: (v) => o.gemm(v.a!, v.b!, v.c!, { transA: true, transB: true, alpha: 0.7, beta: 1.3 }),
  },
  { name: 'Gemm plain', inputs: { a: { shape: [3, 4] }, b: { shape: [4, 2] }, c: { shape: [3, 2] } }, build: (v) => o.gemm(v.a!, v.b!, v.c!) },
  {
    name: 'Gather (embedding, repeated ids)',
    inputs: { table: { shape: [5, 3] }, ids: { shape: [2, 3], int: [0, 4, 4, 2, 0, 1] } },
    build: (v) => o.gather(v.table!, v.ids!, 0),
  },
  {
    name: 'GatherElements',
    inputs: { x: { shape: [2, 3, 5] }, ids: { shape: [2, 3, 1], int: [0, 4, 2, 3, 3, 1] } },
    build: (v) => o.gatherElements(v.x!, v.ids!, 2),
  },
  { name: 'Reshape', inputs: { x: x234 }, build: (v) => o.mul(o.reshape(v.x!, [6, 4]), o.reshape(v.x!, [6, 4])) },
  { name: 'Transpose', inputs: { x: x234 }, build: (v) => o.mul(o.transpose(v.x!, [2, 0, 1]), 1.5) },
  { name: 'Slice', inputs: { x: { shape: [3, 6] } }, build: (v) => o.slice(v.x!, [1, -4], [3, 5], [0, 1]) },
  { name: 'Concat', inputs: { a: x23, b: { shape: [2, 2] } }, build: (v) => o.mul(o.concat([v.a!, v.b!], 1), o.concat([v.b!, v.a!], 1)) },
  {
    name: 'Split',
    inputs: { x: { shape: [2, 6] } },
    build: (v) => {
      const [a, , c] = o.split(v.x!, [2, 1, 3], 1);
      return o.mul(o.reduceSum(a!, [1], true), c!);
    },
  },
  { name: 'Unsqueeze/Squeeze', inputs: { x: x23 }, build: (v) => o.squeeze(o.mul(o.unsqueeze(v.x!, [1]), o.unsqueeze(v.x!, [1])), [1]) },
  { name: 'Expand', inputs: { x: { shape: [3, 1] } }, build: (v) => o.mul(o.expand(v.x!, [2, 3, 4]), 2) },
  { name: 'Softmax', inputs: { x: x234 }, build: (v) => o.softmax(v.x!, -1) },
  { name: 'LogSoftmax', inputs: { x: x234 }, build: (v) => o.logSoftmax(v.x!, -1) },
  {
    name: 'LayerNormalization',
    dtype: 'float32',
    inputs: { x: { shape: [2, 3, 6] }, s: { shape: [6] }, b: { shape: [6] } },
    build: (v) => o.layerNorm(v.x!, v.s!, v.b!).y,
  },
  { name: 'Gelu (erf)', dtype: 'float32', inputs: { x: x234 }, build: (v) => o.gelu(v.x!) },
  { name: 'Gelu (tanh)', dtype: 'float32', inputs: { x: x234 }, build: (v) => o.gelu(v.x!, 'tanh') },
  { name: 'Erf', dtype: 'float32', inputs: { x: x234 }, build: (v) => o.erf(v.x!) },
  { name: 'Tanh', inputs: { x: x234 }, build: (v) => o.tanh(v.x!) },
  { name: 'Sigmoid', inputs: { x: x234 }, build: (v) => o.sigmoid(v.x!) },
  { name: 'Relu', inputs: { x: x234 }, build: (v) => o.relu(v.x!) },
  { name: 'Exp', inputs: { x: x234 }, build: (v) => o.exp(v.x!) },
  { name: 'Log', inputs: { x: { shape: [2, 3, 4], positive: true } }, build: (v) => o.log(v.x!) },
  { name: 'Sqrt', inputs: { x: { shape: [2, 3, 4], positive: true } }, build: (v) => o.sqrt(v.x!) },
  { name: 'Pow (const exponent)', inputs: { x: { shape: [2, 3, 4], positive: true } }, build: (v) => o.pow(v.x!, 2.5) },
  { name: 'Pow (both)', inputs: { x: { shape: [2, 3], positive: true }, p: { shape: [3] } }, build: (v) => o.pow(v.x!, v.p!) },
  { name: 'ReduceSum', inputs: { x: x234 }, build: (v) => o.mul(o.reduceSum(v.x!, [0, 2]), o.reduceSum(v.x!, [0, 2])) },
  { name: 'ReduceSum keepdims', inputs: { x: x234 }, build: (v) => o.mul(o.reduceSum(v.x!, [1], true), v.x!) },
  { name: 'ReduceMean', inputs: { x: x234 }, build: (v) => o.mul(o.reduceMean(v.x!, [-1]), o.reduceMean(v.x!, [-1])) },
  { name: 'ReduceMax', inputs: { x: x234 }, build: (v) => o.reduceMax(v.x!, [1], true) },
  {
    name: 'Where (mask)',
    inputs: { c: { shape: [3, 4], constant: true }, a: x234, b: { shape: [4] } },
    build: (v) => o.where(o.greater(v.c!, 0), v.a!, v.b!),
  },
  { name: 'Clip', inputs: { x: x234 }, build: (v) => o.clip(v.x!, -0.6, 0.7) },
  { name: 'Min (broadcast)', inputs: { a: x234, b: { shape: [4] } }, build: (v) => o.min(v.a!, v.b!) },
  { name: 'Max (broadcast)', inputs: { a: x234, b: { shape: [3, 4] } }, build: (v) => o.max(v.a!, v.b!) },
  // Ops and compositions of the Hugging Face decoders (hf/forward.ts, hf/lora.ts).
  {
    name: 'Gemm with ONNX defaults (transB only: linear)',
    inputs: { x: { shape: [3, 4] }, w: { shape: [5, 4] }, b: { shape: [5] } },
    build: (v) => linear(v.x!, v.w!, v.b!),
  },
  {
    name: 'Gemm transA only, alpha',
    inputs: { a: { shape: [4, 3] }, b: { shape: [4, 2] } },
    build: (v) => o.gemm(v.a!, v.b!, null, { transA: true, alpha: 0.3 }),
  },
  { name: 'Sin', inputs: { x: x234 }, build: (v) => o.sin(v.x!) },
  { name: 'Cos', inputs: { x: x234 }, build: (v) => o.cos(v.x!) },
  { name: 'RMSNorm (x and weight)', inputs: { x: { shape: [2, 3, 6] }, w: { shape: [6] } }, build: (v) => rmsNorm(v.x!, v.w!, 1e-5) },
  {
    name: 'RoPE rotate-half (x, cos, sin)',
    inputs: { x: { shape: [1, 2, 3, 4] }, c: { shape: [1, 1, 3, 4] }, s: { shape: [1, 1, 3, 4] } },
    build: (v) => {
      const [x1, x2] = o.split(v.x!, [2, 2], -1);
      return o.add(o.mul(v.x!, v.c!), o.mul(o.concat([o.neg(x2!), x1!], -1), v.s!));
    },
  },
  {
    name: 'SwiGLU',
    inputs: { g: x234, u: x234 },
    build: (v) => o.mul(o.mul(v.g!, o.sigmoid(v.g!)), v.u!),
  },
  {
    name: 'GQA attention (KV heads broadcast over query groups)',
    inputs: { q: { shape: [1, 2, 2, 3, 4] }, k: { shape: [1, 2, 3, 4] }, v: { shape: [1, 2, 3, 4] } },
    build: (v) => {
      const kt = o.unsqueeze(o.transpose(v.k!, [0, 1, 3, 2]), [2]); // [1, 2, 1, 4, 3]
      const p = o.softmax(o.mul(o.matmul(v.q!, kt), 0.5), -1);
      return o.matmul(p, o.unsqueeze(v.v!, [2])); // [1, 2, 2, 3, 4]
    },
  },
  {
    name: 'LoRA projection (W, A, B with alpha / r)',
    inputs: { x: { shape: [3, 4] }, w: { shape: [5, 4] }, a: { shape: [2, 4] }, b: { shape: [5, 2] } },
    build: (v) => o.add(linear(v.x!, v.w!), o.gemm(o.gemm(v.x!, v.a!, null, { transB: true }), v.b!, null, { transB: true, alpha: 4 })),
  },
  { name: 'Cast round trip', dtype: 'float32', inputs: { x: x23 }, build: (v) => o.cast(o.mul(o.cast(v.x!, 'float64'), 2), 'float32') },
];

describe('autodiff gradients match finite differences', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const dtype = c.dtype ?? 'float64';
      const r = await gradCheck(dtype, c.inputs, c.build);
      expect(r.checked).toBeGreaterThan(0);
      expect(r.analyticNorm).toBeGreaterThan(0);
      // float64: central differences are accurate to ~1e-9; float32 with eps 1e-2: ~1e-3.
      expect(r.relError).toBeLessThan(dtype === 'float64' ? 1e-6 : 5e-3);
    });
  }
});
