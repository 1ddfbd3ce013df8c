import { typedArray, type DType, type Dim, type Shape, type Value } from './graph';

// Op wrappers that infer output dtype and shape, so model code reads like array code and
// autodiff has the static shapes it needs. Dynamic dims pass through as names.

export function broadcastShapes(a: Shape | undefined, b: Shape | undefined): Shape | undefined {
  if (!a || !b) return undefined;
  const n = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1 || x === y) out.push(x);
    else if (typeof x === 'number' && typeof y === 'number') throw new Error(`cannot broadcast [${a}] with [${b}]`);
    else out.push(typeof x === 'number' ? x : y);
  }
  return out;
}

function binary(op: string, a: Value, b: Value, dtype: DType = a.dtype): Value {
  return a.graph.node(op, [a, b], [{ dtype, shape: broadcastShapes(a.shape, b.shape) }])[0]!;
}

function unary(op: string, x: Value, attrs = {}): Value {
  return x.graph.node(op, [x], [{ dtype: x.dtype, shape: x.shape }], attrs)[0]!;
}

const lift = (like: Value, b: Value | number) => (typeof b === 'number' ? like.graph.scalar(b, like.dtype) : b);

export const add = (a: Value, b: Value | number) => binary('Add', a, lift(a, b));
export const sub = (a: Value, b: Value | number) => binary('Sub', a, lift(a, b));
export const mul = (a: Value, b: Value | number) => binary('Mul', a, lift(a, b));
export const div = (a: Value, b: Value | number) => binary('Div', a, lift(a, b));
export const pow = (a: Value, b: Value | number) => binary('Pow', a, lift(a, b));
export const min = (a: Value, b: Value | number) => binary('Min', a, lift(a, b));
export const max = (a: Value, b: Value | number) => binary('Max', a, lift(a, b));
export const rsub = (a: number, b: Value) => binary('Sub', b.graph.scalar(a, b.dtype), b);
export const equal = (a: Value, b: Value) => binary('Equal', a, b, 'bool');
export const less = (a: Value, b: Value | number) => binary('Less', a, lift(a, b), 'bool');
export const greater = (a: Value, b: Value | number) => binary('Greater', a, lift(a, b), 'bool');
export const greaterOrEqual = (a: Value, b: Value | number) => binary('GreaterOrEqual', a, lift(a, b), 'bool');
export const lessOrEqual = (a: Value, b: Value | number) => binary('LessOrEqual', a, lift(a, b), 'bool');
export const and = (a: Value, b: Value) => binary('And', a, b, 'bool');

export const neg = (x: Value) => unary('Neg', x);
export const exp = (x: Value) => unary('Exp', x);
export const log = (x: Value) => unary('Log', x);
export const sqrt = (x: Value) => unary('Sqrt', x);
export const tanh = (x: Value) => unary('Tanh', x);
export const relu = (x: Value) => unary('Relu', x);
export const sigmoid = (x: Value) => unary('Sigmoid', x);
export const erf = (x: Value) => unary('Erf', x);
export const cos = (x: Value) => unary('Cos', x);
export const sin = (x: Value) => unary('Sin', x);
export const identity = (x: Value) => unary('Identity', x);
export const gelu = (x: Value, approximate: 'none' | 'tanh' = 'none') => unary('Gelu', x, { approximate });
export const softmax = (x: Value, axis = -1) => unary('Softmax', x, { axis });
export const logSoftmax = (x: Value, axis = -1) => unary('LogSoftmax', x, { axis });

export function cast(x: Value, to: DType): Value {
  if (x.dtype === to) return x;
  return x.graph.node('Cast', [x], [{ dtype: to, shape: x.shape }], { to: onnxTypeNumber(to) })[0]!;
}

// Avoid importing the proto here: ONNX TensorProto.DataType numbers.
function onnxTypeNumber(d: DType): number {
  return { float32: 1, float64: 11, float16: 10, bfloat16: 16, int64: 7, int32: 6, bool: 9 }[d];
}

export function where(cond: Value, a: Value | number, b: Value | number): Value {
  const like = typeof a === 'number' ? (b as Value) : a;
  const av = lift(like, a);
  const bv = lift(like, b);
  const shape = broadcastShapes(broadcastShapes(cond.shape, av.shape), bv.shape);
  return cond.graph.node('Where', [cond, av, bv], [{ dtype: av.dtype, shape }])[0]!;
}

export function clip(x: Value, lo: number, hi: number): Value {
  const g = x.graph;
  return g.node('Clip', [x, g.scalar(lo, x.dtype), g.scalar(hi, x.dtype)], [{ dtype: x.dtype, shape: x.shape }])[0]!;
}

export function matmul(a: Value, b: Value): Value {
  let shape: Shape | undefined;
  if (a.shape && b.shape) {
    if (a.shape.length < 2 || b.shape.length < 2) throw new Error('matmul wrapper needs rank >= 2');
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2))!;
    shape = [...batch, a.shape[a.shape.length - 2]!, b.shape[b.shape.length - 1]!];
  }
  return a.graph.node('MatMul', [a, b], [{ dtype: a.dtype, shape }])[0]!;
}

/** Y = alpha * A' B' + beta * C (2-D, ONNX Gemm). */
export function gemm(a: Value, b: Value, c: Value | null, o: { transA?: boolean; transB?: boolean; alpha?: number; beta?: number } = {}): Value {
  const [as, bs] = [a.staticShape(), b.staticShape()];
  const m = o.transA ? as[1]! : as[0]!;
  const n = o.transB ? bs[0]! : bs[1]!;
  return a.graph.node('Gemm', c ? [a, b, c] : [a, b], [{ dtype: a.dtype, shape: [m, n] }], {
    transA: o.transA ? 1 : 0,
    transB: o.transB ? 1 : 0,
    alpha: { float: o.alpha ?? 1 },
    beta: { float: o.beta ?? 1 },
  })[0]!;
}

export function transpose(x: Value, perm: number[]): Value {
  const shape = x.shape ? perm.map((p) => x.shape![p]!) : undefined;
  return x.graph.node('Transpose', [x], [{ dtype: x.dtype, shape }], { perm })[0]!;
}

/** Reshape to a fully specified shape (0 and -1 are resolved here when possible). */
export function reshape(x: Value, shape: number[]): Value {
  let out: Shape = shape.map((d, i) => (d === 0 ? x.shape![i]! : d));
  if (out.includes(-1) && x.shape?.every((d) => typeof d === 'number')) {
    const total = (x.shape as number[]).reduce((p, d) => p * d, 1);
    const known = (out as number[]).filter((d) => d !== -1).reduce((p, d) => p * d, 1);
    out = out.map((d) => (d === -1 ? total / known : d));
  } else if (out.includes(-1)) {
    out = out.map((d) => (d === -1 ? 'reshaped' : d));
  }
  return x.graph.node('Reshape', [x, x.graph.ints(shape)], [{ dtype: x.dtype, shape: out }])[0]!;
}

export function unsqueeze(x: Value, axes: number[]): Value {
  let shape: Shape | undefined;
  if (x.shape) {
    const r = x.shape.length + axes.length;
    const norm = axes.map((a) => (a < 0 ? a + r : a));
    shape = [];
    let j = 0;
    for (let i = 0; i < r; i++) shape.push(norm.includes(i) ? 1 : x.shape[j++]!);
  }
  return x.graph.node('Unsqueeze', [x, x.graph.ints(axes)], [{ dtype: x.dtype, shape }])[0]!;
}

export function squeeze(x: Value, axes: number[]): Value {
  const r = x.rank;
  const norm = axes.map((a) => (a < 0 ? a + r : a));
  const shape = x.shape!.filter((_, i) => !norm.includes(i));
  return x.graph.node('Squeeze', [x, x.graph.ints(axes)], [{ dtype: x.dtype, shape }])[0]!;
}

/** Static Slice: numeric starts/ends per axis (step 1), kept in meta for the gradient. */
export function slice(x: Value, starts: number[], ends: number[], axes: number[]): Value {
  const g = x.graph;
  let shape: Shape | undefined;
  if (x.shape) {
    shape = [...x.shape];
    axes.forEach((a0, i) => {
      const a = a0 < 0 ? a0 + x.rank : a0;
      const n = x.shape![a]!;
      if (typeof n !== 'number') {
        shape![a] = `${x.name}_slice`;
        return;
      }
      const s = clampIndex(starts[i]!, n);
      const e = clampIndex(ends[i]!, n);
      shape![a] = Math.max(0, e - s);
    });
  }
  return g.node('Slice', [x, g.ints(starts), g.ints(ends), g.ints(axes)], [{ dtype: x.dtype, shape }], {}, { starts, ends, axes })[0]!;
}

export function clampIndex(i: number, n: number): number {
  const j = i < 0 ? i + n : i;
  return Math.min(Math.max(j, 0), n);
}

export function concat(xs: Value[], axis: number): Value {
  const first = xs[0]!;
  let shape: Shape | undefined;
  if (xs.every((x) => x.shape)) {
    const a = axis < 0 ? axis + first.rank : axis;
    shape = [...first.shape!];
    const dims = xs.map((x) => x.shape![a]!);
    shape[a] = dims.every((d) => typeof d === 'number') ? (dims as number[]).reduce((p, d) => p + d, 0) : 'concat';
  }
  return first.graph.node('Concat', xs, [{ dtype: first.dtype, shape }], { axis })[0]!;
}

export function split(x: Value, sizes: number[], axis: number): Value[] {
  const a = axis < 0 ? axis + x.rank : axis;
  const outs = sizes.map((s) => {
    const shape = [...x.shape!];
    shape[a] = s;
    return { dtype: x.dtype, shape };
  });
  return x.graph.node('Split', [x, x.graph.ints(sizes)], outs, { axis });
}

export function expand(x: Value, shape: number[]): Value {
  return x.graph.node('Expand', [x, x.graph.ints(shape)], [{ dtype: x.dtype, shape: broadcastShapes(x.shape, shape) }])[0]!;
}

function reduce(op: string, x: Value, axes: number[], keepdims: boolean): Value {
  const r = x.rank;
  const norm = axes.map((a) => (a < 0 ? a + r : a));
  const shape = x.shape!.flatMap((d, i) => (norm.includes(i) ? (keepdims ? [1] : []) : [d]));
  return x.graph.node(op, [x, x.graph.ints(axes)], [{ dtype: x.dtype, shape }], { keepdims: keepdims ? 1 : 0 })[0]!;
}

export const reduceSum = (x: Value, axes: number[], keepdims = false) => reduce('ReduceSum', x, axes, keepdims);
export const reduceMean = (x: Value, axes: number[], keepdims = false) => reduce('ReduceMean', x, axes, keepdims);
export const reduceMax = (x: Value, axes: number[], keepdims = false) => reduce('ReduceMax', x, axes, keepdims);

/** Sum of every element, as a scalar. */
export function sumAll(x: Value): Value {
  return reduceSum(
    x,
    x.shape!.map((_, i) => i),
    false,
  );
}

export function gather(data: Value, indices: Value, axis = 0): Value {
  const a = axis < 0 ? axis + data.rank : axis;
  const shape = data.shape && indices.shape ? [...data.shape.slice(0, a), ...indices.shape, ...data.shape.slice(a + 1)] : undefined;
  return data.graph.node('Gather', [data, indices], [{ dtype: data.dtype, shape }], { axis })[0]!;
}

export function gatherElements(data: Value, indices: Value, axis: number): Value {
  return data.graph.node('GatherElements', [data, indices], [{ dtype: data.dtype, shape: indices.shape }], { axis })[0]!;
}

/** LayerNormalization over the last axis; also returns Mean and InvStdDev for the gradient. */
export function layerNorm(x: Value, scale: Value, bias: Value, epsilon = 1e-5): { y: Value; mean: Value; invStd: Value } {
  const stat = [...x.shape!.slice(0, -1), 1];
  const [y, mean, invStd] = x.graph.node(
    'LayerNormalization',
    [x, scale, bias],
    [
      { dtype: x.dtype, shape: x.shape },
      { dtype: x.dtype, shape: stat, name: 'ln_mean' },
      { dtype: x.dtype, shape: stat, name: 'ln_invstd' },
    ],
    { axis: -1, epsilon: { float: epsilon }, stash_type: x.dtype === 'float64' ? 11 : 1 },
  );
  return { y: y!, mean: mean!, invStd: invStd! };
}

export function zerosLike(x: Value): Value {
  return constantOfShape(x, x.staticShape(), 0);
}

export function constantOfShape(like: Value, shape: number[], value: number): Value {
  const g = like.graph;
  return g.node('ConstantOfShape', [g.ints(shape)], [{ dtype: like.dtype, shape }], {
    value: { tensor: { dtype: like.dtype, shape: [1], data: typedArray(like.dtype, [value]) } },
  })[0]!;
}
