import { Graph, typedArray, type DType, type Value } from './graph';
import { gradients } from './autodiff';
import * as o from './ops';
import { createSession, ort } from '../onnx-session';
import { Rng } from '@/core/random';

export type CheckInput = {
  shape: number[];
  /** Integer inputs (indices) are fed as given and not differentiated. */
  int?: number[];
  /** Keep float inputs away from zero or positive (for Log, Sqrt, Pow). */
  positive?: boolean;
  /** Not differentiated (e.g. a Where condition source). */
  constant?: boolean;
};

export type CheckResult = { relError: number; maxAbsError: number; checked: number; analyticNorm: number };

/**
 * Finite-difference check of autodiff: loss = sum(f(inputs) * R) for a fixed random R;
 * compares the emitted gradient graph with central differences run through the same
 * onnxruntime session, on random non-zero inputs. Returns the worst relative error.
 */
export async function gradCheck(
  dtype: DType,
  inputs: Record<string, CheckInput>,
  build: (vals: Record<string, Value>) => Value,
  opts: { seed?: number; eps?: number; maxElements?: number } = {},
): Promise<CheckResult> {
  const rng = new Rng(opts.seed ?? 7);
  const eps = opts.eps ?? (dtype === 'float64' ? 1e-6 : 1e-2);
  const g = new Graph('gradcheck');
  const vals: Record<string, Value> = {};
  const feeds: Record<string, ort.Tensor> = {};
  const wrt: Value[] = [];
  for (const [name, spec] of Object.entries(inputs)) {
    if (spec.int) {
      vals[name] = g.input(name, 'int64', spec.shape);
      feeds[name] = new ort.Tensor('int64', typedArray('int64', spec.int) as BigInt64Array, spec.shape);
      continue;
    }
    vals[name] = g.input(name, dtype, spec.shape);
    const n = spec.shape.reduce((p, d) => p * d, 1);
    const xs = Array.from({ length: n }, () => {
      // Random, never zero, magnitude in [0.2, 1.2] so kinks (Relu, Clip, Max) are avoided.
      const m = 0.2 + rng.next();
      return spec.positive ? m : rng.next() < 0.5 ? -m : m;
    });
    feeds[name] = new ort.Tensor(dtype as 'float32', typedArray(dtype, xs) as Float32Array, spec.shape);
    if (!spec.constant) wrt.push(vals[name]!);
  }
  const out = build(vals);
  const shape = out.staticShape();
  const r = Array.from({ length: shape.reduce((p, d) => p * d, 1) }, () => rng.normal());
  const loss = o.sumAll(o.mul(out, g.constant({ dtype, shape, data: typedArray(dtype, r) }, 'R')));
  const grads = gradients(loss, wrt);
  g.output(loss, 'loss');
  grads.forEach((d, i) => g.output(d, `grad_${wrt[i]!.name}`));
  const { session } = await createSession(g.toBytes(), { providers: ['cpu'], threads: 1 });
  const base = await session.run(feeds);

  let num2 = 0;
  let diff2 = 0;
  let ana2 = 0;
  let maxAbs = 0;
  let checked = 0;
  for (const w of wrt) {
    const analytic = base[`grad_${w.name}`]!.data as Float32Array;
    const x = feeds[w.name]!.data as Float32Array;
    const count = Math.min(x.length, opts.maxElements ?? 48);
    const stride = Math.max(1, Math.floor(x.length / count));
    for (let i = 0; i < x.length; i += stride) {
      const keep = x[i]!;
      x[i] = keep + eps;
      const up = Number((await session.run(feeds, ['loss'])).loss!.data[0]);
      x[i] = keep - eps;
      const down = Number((await session.run(feeds, ['loss'])).loss!.data[0]);
      x[i] = keep;
      const numeric = (up - down) / (2 * eps);
      const a = Number(analytic[i]);
      num2 += numeric * numeric;
      ana2 += a * a;
      diff2 += (numeric - a) ** 2;
      maxAbs = Math.max(maxAbs, Math.abs(numeric - a));
      checked++;
    }
  }
  await session.release();
  const scale = Math.max(Math.sqrt(num2), Math.sqrt(ana2), 1e-12);
  return { relError: Math.sqrt(diff2) / scale, maxAbsError: maxAbs, checked, analyticNorm: Math.sqrt(ana2) };
}
