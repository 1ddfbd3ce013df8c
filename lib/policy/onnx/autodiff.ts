import type { Graph, Node, Value } from './graph';
import * as o from './ops';

/**
 * Reverse-mode autodiff over a built graph: appends gradient nodes (plain ONNX ops) that
 * compute d(loss)/d(wrt) and returns them in the order of `wrt`. Gradients of values that
 * do not reach the loss are zeros. Shapes must be static where broadcasting is undone.
 */
export function gradients(loss: Value, wrt: Value[]): Value[] {
  const g = loss.graph;
  const need = dependents(g, wrt);
  const grads = new Map<string, Value>();
  const accumulate = (v: Value, d: Value) => {
    const prev = grads.get(v.name);
    grads.set(v.name, prev ? o.add(prev, d) : d);
  };
  return g.scope('grad', () => {
    grads.set(loss.name, o.constantOfShape(loss, loss.staticShape(), 1));
    for (let i = g.nodes.length - 1; i >= 0; i--) {
      const node = g.nodes[i]!;
      if (NON_DIFFERENTIABLE.has(node.op)) continue;
      const dOuts = node.outputs.map((out) => grads.get(out.name) ?? null);
      if (dOuts.every((d) => d === null)) continue;
      if (!node.inputs.some((inp) => inp && need.has(inp.name))) continue;
      const rule = RULES[node.op];
      if (!rule) throw new Error(`autodiff: no gradient rule for ${node.op} (node ${node.name})`);
      const dIns = g.scope(node.outputs[0]!.name.replace(/\//g, '.'), () => rule(node, dOuts, need));
      node.inputs.forEach((inp, k) => {
        const d = dIns[k];
        if (inp && d && need.has(inp.name)) accumulate(inp, d);
      });
    }
    return wrt.map((w) => grads.get(w.name) ?? o.zerosLike(w));
  });
}

/** Values whose computation depends on any of `wrt`. */
function dependents(g: Graph, wrt: Value[]): Set<string> {
  const need = new Set(wrt.map((w) => w.name));
  for (const n of g.nodes) {
    if (NON_DIFFERENTIABLE.has(n.op)) continue;
    if (n.inputs.some((i) => i && need.has(i.name))) for (const out of n.outputs) need.add(out.name);
  }
  return need;
}

const NON_DIFFERENTIABLE = new Set([
  'Equal',
  'Less',
  'Greater',
  'LessOrEqual',
  'GreaterOrEqual',
  'And',
  'Or',
  'Not',
  'Shape',
  'ConstantOfShape',
  'Range',
  'OneHot',
  'ArgMax',
  'Trilu',
]);

type Rule = (node: Node, dOuts: (Value | null)[], need: Set<string>) => (Value | null)[];

/** Sum `d` down to `shape` (undoing numpy broadcasting). */
export function unbroadcast(d: Value, target: Value): Value {
  const ts = target.staticShape();
  const ds = d.staticShape();
  if (ts.length === ds.length && ts.every((x, i) => x === ds[i])) return d;
  const pad = ds.length - ts.length;
  const axes: number[] = [];
  ds.forEach((x, i) => {
    const t = i < pad ? 1 : ts[i - pad]!;
    if (t === 1 && x !== 1) axes.push(i);
  });
  const summed = axes.length ? o.reduceSum(d, axes, true) : d;
  return o.reshape(summed, ts);
}

const swapLast = (x: Value) => {
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1]!, perm[r - 2]!];
  return o.transpose(x, perm);
};

const inv = (perm: number[]) => {
  const p = new Array<number>(perm.length);
  perm.forEach((x, i) => (p[x] = i));
  return p;
};

const RULES: Record<string, Rule> = {
  Identity: (_n, [d = null]) => [d],
  Add: (n, [d]) => [unbroadcast(d!, n.inputs[0]!), unbroadcast(d!, n.inputs[1]!)],
  Sub: (n, [d], need) => [unbroadcast(d!, n.inputs[0]!), need.has(n.inputs[1]!.name) ? unbroadcast(o.neg(d!), n.inputs[1]!) : null],
  Mul: (n, [d], need) => {
    const [a, b] = n.inputs as Value[];
    return [need.has(a!.name) ? unbroadcast(o.mul(d!, b!), a!) : null, need.has(b!.name) ? unbroadcast(o.mul(d!, a!), b!) : null];
  },
  Div: (n, [d], need) => {
    const [a, b] = n.inputs as Value[];
    const y = n.outputs[0]!;
    return [need.has(a!.name) ? unbroadcast(o.div(d!, b!), a!) : null, need.has(b!.name) ? unbroadcast(o.neg(o.div(o.mul(d!, y), b!)), b!) : null];
  },
  Neg: (_n, [d]) => [o.neg(d!)],
  Cast: (n, [d]) => [o.cast(d!, n.inputs[0]!.dtype)],
  MatMul: (n, [d], need) => {
    const [a, b] = n.inputs as Value[];
    let da: Value | null = null;
    let db: Value | null = null;
    if (need.has(a!.name)) da = unbroadcast(o.matmul(d!, swapLast(b!)), a!);
    if (need.has(b!.name)) {
      if (b!.rank === 2 && a!.rank > 2) {
        // A weight shared across the batch: flatten rows so dW is one 2-D matmul.
        const k = a!.staticShape().at(-1)!;
        const m = d!.staticShape().at(-1)!;
        db = o.matmul(swapLast(o.reshape(a!, [-1, k])), o.reshape(d!, [-1, m]));
      } else db = unbroadcast(o.matmul(swapLast(a!), d!), b!);
    }
    return [da, db];
  },
  Gemm: (n, [d], need) => {
    const [a, b, c] = n.inputs as Value[];
    // ONNX defaults: alpha = beta = 1, no transposes (forward.ts's linear sets only transB).
    const alpha = (n.attrs.alpha as { float: number } | undefined)?.float ?? 1;
    const beta = (n.attrs.beta as { float: number } | undefined)?.float ?? 1;
    const tA = n.attrs.transA === 1;
    const tB = n.attrs.transB === 1;
    // Y = alpha·op(a)·op(b): dop(a) = alpha·d·op(b)ᵀ, dop(b) = alpha·op(a)ᵀ·d, written as
    // Gemms with transpose flags so no transposed copy of a weight is materialised.
    let da: Value | null = null;
    let db: Value | null = null;
    if (need.has(a!.name)) da = tA ? o.gemm(b!, d!, null, { transA: tB, transB: true, alpha }) : o.gemm(d!, b!, null, { transB: !tB, alpha });
    if (need.has(b!.name)) db = tB ? o.gemm(d!, a!, null, { transA: true, transB: tA, alpha }) : o.gemm(a!, d!, null, { transA: !tA, alpha });
    const dc = c && need.has(c.name) ? unbroadcast(beta === 1 ? d! : o.mul(d!, beta), c) : null;
    return [da, db, dc];
  },
  Transpose: (n, [d]) => [o.transpose(d!, inv(n.attrs.perm as number[]))],
  Reshape: (n, [d]) => [o.reshape(d!, n.inputs[0]!.staticShape()), null],
  Unsqueeze: (n, [d]) => [o.reshape(d!, n.inputs[0]!.staticShape()), null],
  Squeeze: (n, [d]) => [o.reshape(d!, n.inputs[0]!.staticShape()), null],
  Expand: (n, [d]) => [unbroadcast(d!, n.inputs[0]!), null],
  Slice: (n, [d]) => {
    const x = n.inputs[0]!;
    const xs = x.staticShape();
    const { starts, ends, axes } = n.meta as { starts: number[]; ends: number[]; axes: number[] };
    const pads = new Array<number>(xs.length * 2).fill(0);
    axes.forEach((a0, i) => {
      const a = a0 < 0 ? a0 + xs.length : a0;
      const s = o.clampIndex(starts[i]!, xs[a]!);
      const e = o.clampIndex(ends[i]!, xs[a]!);
      pads[a] = s;
      pads[a + xs.length] = xs[a]! - e;
    });
    const g = x.graph;
    return [g.node('Pad', [d!, g.ints(pads)], [{ dtype: d!.dtype, shape: xs }], { mode: 'constant' })[0]!];
  },
  Concat: (n, [d]) => {
    const axis = n.attrs.axis as number;
    const a = axis < 0 ? axis + d!.rank : axis;
    return o.split(
      d!,
      n.inputs.map((i) => i!.staticShape()[a]!),
      a,
    );
  },
  Split: (n, dOuts) => {
    const filled = dOuts.map((d, i) => d ?? o.zerosLike(n.outputs[i]!));
    return [o.concat(filled, n.attrs.axis as number), null];
  },
  Gather: (n, [d]) => {
    const [data, idx] = n.inputs as Value[];
    if ((n.attrs.axis as number) !== 0) throw new Error('autodiff: Gather gradient supports axis 0 only');
    const zeros = o.zerosLike(data!);
    const g = data!.graph;
    const i64 = o.cast(idx!, 'int64');
    const indices = o.unsqueeze(i64, [-1]);
    return [g.node('ScatterND', [zeros, indices, d!], [{ dtype: d!.dtype, shape: data!.shape }], { reduction: 'add' })[0]!, null];
  },
  GatherElements: (n, [d]) => {
    const [data, idx] = n.inputs as Value[];
    const g = data!.graph;
    return [
      g.node('ScatterElements', [o.zerosLike(data!), idx!, d!], [{ dtype: d!.dtype, shape: data!.shape }], {
        axis: n.attrs.axis as number,
        reduction: 'add',
      })[0]!,
      null,
    ];
  },
  Softmax: (n, [d]) => {
    const y = n.outputs[0]!;
    const axis = n.attrs.axis as number;
    return [o.mul(y, o.sub(d!, o.reduceSum(o.mul(d!, y), [axis], true)))];
  },
  LogSoftmax: (n, [d]) => {
    const y = n.outputs[0]!;
    const axis = n.attrs.axis as number;
    return [o.sub(d!, o.mul(o.exp(y), o.reduceSum(d!, [axis], true)))];
  },
  LayerNormalization: (n, [d], need) => {
    const [x, scale, bias] = n.inputs as Value[];
    const [, mean, invStd] = n.outputs;
    const xhat = o.mul(o.sub(x!, mean!), invStd!);
    const lead = x!
      .staticShape()
      .slice(0, -1)
      .map((_, i) => i);
    const dScale = need.has(scale!.name) ? o.reduceSum(o.mul(d!, xhat), lead) : null;
    const dBias = need.has(bias!.name) ? o.reduceSum(d!, lead) : null;
    let dx: Value | null = null;
    if (need.has(x!.name)) {
      const dxhat = o.mul(d!, scale!);
      const m1 = o.reduceMean(dxhat, [-1], true);
      const m2 = o.reduceMean(o.mul(dxhat, xhat), [-1], true);
      dx = o.mul(invStd!, o.sub(o.sub(dxhat, m1), o.mul(xhat, m2)));
    }
    return [dx, dScale, dBias];
  },
  Gelu: (n, [d]) => {
    const x = n.inputs[0]!;
    if (n.attrs.approximate === 'tanh') {
      // y = 0.5 x (1 + tanh(u)), u = c (x + 0.044715 x^3)
      const c = Math.sqrt(2 / Math.PI);
      const x2 = o.mul(x, x);
      const t = o.tanh(o.mul(o.mul(x, o.add(o.mul(x2, 0.044715), 1)), c));
      const du = o.mul(o.add(o.mul(x2, 3 * 0.044715), 1), c);
      const dydx = o.add(o.mul(o.add(t, 1), 0.5), o.mul(o.mul(o.mul(x, 0.5), o.rsub(1, o.mul(t, t))), du));
      return [o.mul(d!, dydx)];
    }
    const cdf = o.mul(o.add(o.erf(o.mul(x, Math.SQRT1_2)), 1), 0.5);
    const pdf = o.mul(o.exp(o.mul(o.mul(x, x), -0.5)), 1 / Math.sqrt(2 * Math.PI));
    return [o.mul(d!, o.add(cdf, o.mul(x, pdf)))];
  },
  Tanh: (n, [d]) => {
    const y = n.outputs[0]!;
    return [o.mul(d!, o.rsub(1, o.mul(y, y)))];
  },
  Sigmoid: (n, [d]) => {
    const y = n.outputs[0]!;
    return [o.mul(d!, o.mul(y, o.rsub(1, y)))];
  },
  Relu: (n, [d]) => [o.where(o.greater(n.inputs[0]!, 0), d!, 0)],
  Exp: (n, [d]) => [o.mul(d!, n.outputs[0]!)],
  Sin: (n, [d]) => [o.mul(d!, o.cos(n.inputs[0]!))],
  Cos: (n, [d]) => [o.neg(o.mul(d!, o.sin(n.inputs[0]!)))],
  Log: (n, [d]) => [o.div(d!, n.inputs[0]!)],
  Sqrt: (n, [d]) => [o.div(o.mul(d!, 0.5), n.outputs[0]!)],
  Erf: (n, [d]) => {
    const x = n.inputs[0]!;
    return [o.mul(d!, o.mul(o.exp(o.neg(o.mul(x, x))), 2 / Math.sqrt(Math.PI)))];
  },
  Pow: (n, [d], need) => {
    const [x, p] = n.inputs as Value[];
    const y = n.outputs[0]!;
    const dx = need.has(x!.name) ? unbroadcast(o.mul(d!, o.mul(p!, o.pow(x!, o.sub(p!, 1)))), x!) : null;
    const dp = need.has(p!.name) ? unbroadcast(o.mul(d!, o.mul(y, o.log(x!))), p!) : null;
    return [dx, dp];
  },
  ReduceSum: (n, [d]) => [spreadReduced(n, d!), null],
  ReduceMean: (n, [d]) => {
    const x = n.inputs[0]!;
    const count = x.staticShape().reduce((p, v) => p * v, 1) / n.outputs[0]!.staticShape().reduce((p, v) => p * v, 1);
    return [o.div(spreadReduced(n, d!), count), null];
  },
  ReduceMax: (n, [d]) => {
    const x = n.inputs[0]!;
    const yk = keepDimsOf(n, n.outputs[0]!);
    // Ties share the gradient equally, as in most frameworks' subgradient choice.
    const hit = o.cast(o.equal(x, yk), x.dtype);
    const count = o.reduceSum(hit, axesOf(n), true);
    return [o.mul(o.div(hit, count), keepDimsOf(n, d!)), null];
  },
  Where: (n, [d], need) => {
    const [c, a, b] = n.inputs as Value[];
    return [null, need.has(a!.name) ? unbroadcast(o.where(c!, d!, 0), a!) : null, need.has(b!.name) ? unbroadcast(o.where(c!, 0, d!), b!) : null];
  },
  Clip: (n, [d]) => {
    const [x, lo, hi] = n.inputs as Value[];
    let inside = o.and(o.greaterOrEqual(x!, lo!), o.lessOrEqual(x!, hi!));
    if (!lo) inside = o.lessOrEqual(x!, hi!);
    return [o.where(inside, d!, 0), null, null];
  },
  Min: (n, [d], need) => minMax(n, d!, need, 'min'),
  Max: (n, [d], need) => minMax(n, d!, need, 'max'),
  Pad: () => {
    throw new Error('autodiff: Pad appears only in gradients');
  },
};

function minMax(n: Node, d: Value, need: Set<string>, kind: 'min' | 'max'): (Value | null)[] {
  const [a, b] = n.inputs as Value[];
  const pickA = kind === 'min' ? o.lessOrEqual(a!, b!) : o.greaterOrEqual(a!, b!);
  return [need.has(a!.name) ? unbroadcast(o.where(pickA, d, 0), a!) : null, need.has(b!.name) ? unbroadcast(o.where(pickA, 0, d), b!) : null];
}

function axesOf(n: Node): number[] {
  const c = n.inputs[1]!;
  const t = c.graph.initializers.get(c.name);
  if (!t) throw new Error(`autodiff: ${n.op} axes must be a constant`);
  return Array.from(t.tensor.data as BigInt64Array, Number);
}

/** Reshape a reduced value back to keepdims form. */
function keepDimsOf(n: Node, v: Value): Value {
  if (n.attrs.keepdims === 1) return v;
  const xs = n.inputs[0]!.staticShape();
  const axes = axesOf(n).map((a) => (a < 0 ? a + xs.length : a));
  return o.reshape(
    v,
    xs.map((s, i) => (axes.includes(i) ? 1 : s)),
  );
}

function spreadReduced(n: Node, d: Value): Value {
  return o.expand(keepDimsOf(n, d), n.inputs[0]!.staticShape());
}
