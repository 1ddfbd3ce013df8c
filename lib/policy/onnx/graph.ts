import onnxPkg from 'onnx-proto';
import { f32ToBf16Bits, f32ToF16Bits } from '../half-floats';

const { onnx } = onnxPkg;

/**
 * Element types the builder knows; float64 exists so gradient checks can run in double,
 * float16 / bfloat16 for mixed-precision compute (their constants hold raw 16-bit patterns).
 */
export type DType = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int64' | 'int32' | 'bool';
/** A dimension: a number when known at build time, a name for dynamic axes (batch, past). */
export type Dim = number | string;
export type Shape = Dim[];
export type TensorData = Float32Array | Float64Array | Uint16Array | BigInt64Array | Int32Array | Uint8Array;

export const OPSET = 20;
const IR_VERSION = 9;

const ONNX_TYPE: Record<DType, number> = {
  float32: onnx.TensorProto.DataType.FLOAT,
  float64: onnx.TensorProto.DataType.DOUBLE,
  float16: onnx.TensorProto.DataType.FLOAT16,
  bfloat16: onnx.TensorProto.DataType.BFLOAT16,
  int64: onnx.TensorProto.DataType.INT64,
  int32: onnx.TensorProto.DataType.INT32,
  bool: onnx.TensorProto.DataType.BOOL,
};

export type Attr = number | number[] | string | { float: number } | { floats: number[] } | { tensor: Tensor };

/** A constant tensor held by the builder (initializers, Constant payloads). */
export type Tensor = { dtype: DType; shape: number[]; data: TensorData };

/** A symbolic value in a graph: what a node produces or a graph input/initializer. */
export class Value {
  constructor(
    readonly graph: Graph,
    readonly name: string,
    readonly dtype: DType,
    readonly shape: Shape | undefined,
  ) {}

  /** The static shape; throws when a dimension is dynamic (autodiff needs static shapes). */
  staticShape(): number[] {
    if (!this.shape || this.shape.some((d) => typeof d !== 'number')) {
      throw new Error(`value ${this.name} has no static shape (${JSON.stringify(this.shape)})`);
    }
    return this.shape as number[];
  }

  get rank(): number {
    if (!this.shape) throw new Error(`value ${this.name} has unknown rank`);
    return this.shape.length;
  }
}

export type Node = {
  op: string;
  name: string;
  inputs: (Value | null)[];
  outputs: Value[];
  attrs: Record<string, Attr>;
  /** Build-time facts that gradient rules need (e.g. a Slice's numeric starts). */
  meta?: Record<string, unknown>;
};

export type OutSpec = { dtype: DType; shape: Shape | undefined; name?: string };

/**
 * A graph under construction. Nodes are appended in creation order, which is a
 * topological order, so autodiff can walk them backwards.
 */
export class Graph {
  readonly nodes: Node[] = [];
  readonly inputs: Value[] = [];
  readonly outputs: Value[] = [];
  readonly initializers = new Map<string, { value: Value; tensor: Tensor }>();
  readonly producers = new Map<string, Node>();
  private readonly used = new Set<string>();
  private scopes: string[] = [];
  private constCache = new Map<string, Value>();

  constructor(readonly name = 'crucible') {}

  /** Run `fn` with names prefixed by `scope/` so the graph reads like the model code. */
  scope<T>(scope: string, fn: () => T): T {
    this.scopes.push(scope);
    try {
      return fn();
    } finally {
      this.scopes.pop();
    }
  }

  /** A unique name under the current scope. */
  fresh(base: string): string {
    const full = [...this.scopes, base].join('/');
    if (!this.used.has(full)) {
      this.used.add(full);
      return full;
    }
    for (let i = 1; ; i++) {
      const n = `${full}_${i}`;
      if (!this.used.has(n)) {
        this.used.add(n);
        return n;
      }
    }
  }

  private claim(name: string): string {
    if (this.used.has(name)) throw new Error(`graph name ${name} is already used`);
    this.used.add(name);
    return name;
  }

  input(name: string, dtype: DType, shape: Shape): Value {
    const v = new Value(this, this.claim(name), dtype, shape);
    this.inputs.push(v);
    return v;
  }

  initializer(name: string, tensor: Tensor, claimed = false): Value {
    const v = new Value(this, claimed ? name : this.claim(name), tensor.dtype, tensor.shape);
    this.initializers.set(v.name, { value: v, tensor });
    return v;
  }

  /** A constant (deduplicated by content), stored as an initializer. */
  constant(tensor: Tensor, hint = 'const'): Value {
    const key = `${tensor.dtype}|${tensor.shape.join(',')}|${Array.from(tensor.data as ArrayLike<number | bigint>).join(',')}`;
    const hit = key.length < 4096 ? this.constCache.get(key) : undefined;
    if (hit) return hit;
    const v = this.initializer(this.fresh(hint), tensor, true);
    if (key.length < 4096) this.constCache.set(key, v);
    return v;
  }

  scalar(x: number, dtype: DType): Value {
    return this.constant({ dtype, shape: [], data: typedArray(dtype, [x]) }, 'c');
  }

  ints(xs: number[]): Value {
    return this.constant({ dtype: 'int64', shape: [xs.length], data: typedArray('int64', xs) }, 'ints');
  }

  node(op: string, inputs: (Value | null)[], outs: OutSpec[], attrs: Record<string, Attr> = {}, meta?: Record<string, unknown>): Value[] {
    for (const i of inputs) if (i && i.graph !== this) throw new Error(`${op}: input ${i.name} is from another graph`);
    const base = op.toLowerCase();
    const outputs = outs.map((o) => new Value(this, this.fresh(o.name ?? base), o.dtype, o.shape));
    const node: Node = { op, name: this.fresh(`${op}_node`), inputs, outputs, attrs, meta };
    this.nodes.push(node);
    for (const o of outputs) this.producers.set(o.name, node);
    return outputs;
  }

  /** Mark `v` as a graph output called `name` (an Identity renames it when needed). */
  output(v: Value, name?: string): Value {
    let out = v;
    if (name && name !== v.name) {
      out = new Value(this, this.claim(name), v.dtype, v.shape);
      const node: Node = { op: 'Identity', name: this.fresh('Identity_node'), inputs: [v], outputs: [out], attrs: {}, meta: { outputRename: true } };
      this.nodes.push(node);
      this.producers.set(out.name, node);
    }
    this.outputs.push(out);
    return out;
  }

  /**
   * Output renames that serialization can do by naming the producer's output directly,
   * instead of an Identity that copies the tensor every run (it showed up at ~10% of a
   * decode step, copying the KV cache). Only values computed by a node qualify, once each.
   */
  private outputAliases(): { alias: Map<string, string>; dropped: Set<Node> } {
    const alias = new Map<string, string>();
    const dropped = new Set<Node>();
    const outputs = new Set(this.outputs.map((o) => o.name));
    for (const n of this.nodes) {
      if (!n.meta?.outputRename) continue;
      const src = n.inputs[0]!;
      if (!this.producers.has(src.name) || this.initializers.has(src.name) || outputs.has(src.name) || alias.has(src.name)) continue;
      alias.set(src.name, n.outputs[0]!.name);
      dropped.add(n);
    }
    return { alias, dropped };
  }

  /** Serialize to ModelProto bytes that onnxruntime loads. */
  toBytes(): Uint8Array {
    const { alias, dropped } = this.outputAliases();
    const ref = (v: Value) => alias.get(v.name) ?? v.name;
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      producerName: 'crucible-policy',
      opsetImport: [{ domain: '', version: OPSET }],
      graph: onnx.GraphProto.create({
        name: this.name,
        node: this.nodes
          .filter((n) => !dropped.has(n))
          .map((n) =>
            onnx.NodeProto.create({
              opType: n.op,
              name: n.name,
              input: n.inputs.map((i) => (i ? ref(i) : '')),
              output: n.outputs.map(ref),
              attribute: Object.entries(n.attrs).map(([k, a]) => attributeProto(k, a)),
            }),
          ),
        input: this.inputs.map(valueInfo),
        output: this.outputs.map(valueInfo),
        initializer: [...this.initializers.values()].map(({ value, tensor }) => tensorProto(value.name, tensor)),
      }),
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

export function typedArray(dtype: DType, xs: ArrayLike<number>): TensorData {
  switch (dtype) {
    case 'float32':
      return Float32Array.from(xs);
    case 'float64':
      return Float64Array.from(xs);
    case 'float16':
      return Uint16Array.from(xs, (x) => f32ToF16Bits(x));
    case 'bfloat16':
      return Uint16Array.from(xs, (x) => f32ToBf16Bits(x));
    case 'int64':
      return BigInt64Array.from(Array.from(xs, (x) => BigInt(Math.trunc(x))));
    case 'int32':
      return Int32Array.from(xs);
    case 'bool':
      return Uint8Array.from(xs);
  }
}

function valueInfo(v: Value) {
  return onnx.ValueInfoProto.create({
    name: v.name,
    type: {
      tensorType: {
        elemType: ONNX_TYPE[v.dtype],
        shape: v.shape ? { dim: v.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } : undefined,
      },
    },
  });
}

function tensorProto(name: string, t: Tensor) {
  const d = t.data;
  return onnx.TensorProto.create({
    name,
    dims: t.shape,
    dataType: ONNX_TYPE[t.dtype],
    rawData: new Uint8Array(d.buffer, d.byteOffset, d.byteLength),
  });
}

function attributeProto(name: string, a: Attr) {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof a === 'number') return { name, type: T.INT, i: a };
  if (typeof a === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(a) };
  if (Array.isArray(a)) return { name, type: T.INTS, ints: a };
  if ('float' in a) return { name, type: T.FLOAT, f: a.float };
  if ('floats' in a) return { name, type: T.FLOATS, floats: a.floats };
  return { name, type: T.TENSOR, t: tensorProto(name, a.tensor) };
}
