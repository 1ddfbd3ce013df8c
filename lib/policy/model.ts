import { z } from 'zod';
import type { Graph, Value } from './onnx/graph';
import * as o from './onnx/ops';
import { Rng } from '@/core/random';

/** Model hyper-parameters, stored in every checkpoint. */
export const ModelFields = z.object({
  vocabSize: z.number().int().positive(),
  dModel: z.number().int().positive(),
  nLayers: z.number().int().positive(),
  nHeads: z.number().int().positive(),
  dMlp: z.number().int().positive(),
  maxSeqLen: z.number().int().positive(),
  lnEps: z.number().positive().default(1e-5),
  initStd: z.number().positive().default(0.02),
});
export const ModelConfig = ModelFields.refine((c) => c.dModel % c.nHeads === 0, { message: 'dModel must be divisible by nHeads' });
export type ModelConfig = z.infer<typeof ModelConfig>;

export type ParamSpec = { name: string; shape: number[]; init: 'normal' | 'zeros' | 'ones'; std?: number; decay: boolean };

/** Every parameter, in a fixed order (checkpoints and graphs rely on it). */
export function paramSpecs(c: ModelConfig): ParamSpec[] {
  const d = c.dModel;
  const proj = c.initStd / Math.sqrt(2 * c.nLayers); // GPT-2 style residual scaling
  const specs: ParamSpec[] = [
    { name: 'wte', shape: [c.vocabSize, d], init: 'normal', decay: true },
    { name: 'wpe', shape: [c.maxSeqLen, d], init: 'normal', std: c.initStd / 2, decay: false },
  ];
  for (let l = 0; l < c.nLayers; l++) {
    const p = `h${l}`;
    specs.push(
      { name: `${p}.ln1.scale`, shape: [d], init: 'ones', decay: false },
      { name: `${p}.ln1.bias`, shape: [d], init: 'zeros', decay: false },
      { name: `${p}.attn.wqkv`, shape: [d, 3 * d], init: 'normal', decay: true },
      { name: `${p}.attn.bqkv`, shape: [3 * d], init: 'zeros', decay: false },
      { name: `${p}.attn.wo`, shape: [d, d], init: 'normal', std: proj, decay: true },
      { name: `${p}.attn.bo`, shape: [d], init: 'zeros', decay: false },
      { name: `${p}.ln2.scale`, shape: [d], init: 'ones', decay: false },
      { name: `${p}.ln2.bias`, shape: [d], init: 'zeros', decay: false },
      { name: `${p}.mlp.w1`, shape: [d, c.dMlp], init: 'normal', decay: true },
      { name: `${p}.mlp.b1`, shape: [c.dMlp], init: 'zeros', decay: false },
      { name: `${p}.mlp.w2`, shape: [c.dMlp, d], init: 'normal', std: proj, decay: true },
      { name: `${p}.mlp.b2`, shape: [d], init: 'zeros', decay: false },
    );
  }
  specs.push(
    { name: 'lnf.scale', shape: [d], init: 'ones', decay: false },
    { name: 'lnf.bias', shape: [d], init: 'zeros', decay: false },
    { name: 'value.w', shape: [d, 1], init: 'normal', decay: true },
    { name: 'value.b', shape: [1], init: 'zeros', decay: false },
  );
  return specs;
}

export function countParams(c: ModelConfig): number {
  return paramSpecs(c).reduce((n, s) => n + s.shape.reduce((p, x) => p * x, 1), 0);
}

export function initParams(c: ModelConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  for (const s of paramSpecs(c)) {
    const n = s.shape.reduce((p, x) => p * x, 1);
    const a = new Float32Array(n);
    if (s.init === 'ones') a.fill(1);
    else if (s.init === 'normal') {
      const std = s.std ?? c.initStd;
      for (let i = 0; i < n; i++) a[i] = rng.normal() * std;
    }
    out.set(s.name, a);
  }
  return out;
}

export type ForwardInputs = {
  tokens: Value; // [B, S] int64
  positions: Value; // [B, S] int64
  /** Additive attention mask [B, 1, S, P + S]: 0 where a query may attend, -1e9 elsewhere. */
  attnMask: Value;
  /** Per layer K and V of earlier positions, [B, H, P, Dh], for incremental decoding. */
  past?: { k: Value; v: Value }[];
};

export type ForwardOutputs = { logits: Value; values: Value; present: { k: Value; v: Value }[] };

/**
 * The decoder-only transformer: token + learned position embeddings, pre-LN blocks with
 * causal multi-head attention and a GELU MLP, final LN, output head tied to the token
 * embedding, and a scalar value head. Shared by training, scoring and inference graphs, so
 * the KV-cache path and full recomputation are the same computation.
 */
export function forward(g: Graph, c: ModelConfig, p: Record<string, Value>, x: ForwardInputs): ForwardOutputs {
  const H = c.nHeads;
  const Dh = c.dModel / H;
  let h = g.scope('embed', () => o.add(o.gather(p.wte!, x.tokens), o.gather(p.wpe!, x.positions)));
  const present: { k: Value; v: Value }[] = [];
  for (let l = 0; l < c.nLayers; l++) {
    const w = (n: string) => p[`h${l}.${n}`]!;
    h = g.scope(`h${l}`, () => {
      const attnOut = g.scope('attn', () => {
        const a = o.layerNorm(h, w('ln1.scale'), w('ln1.bias'), c.lnEps).y;
        const qkv = o.add(o.matmul(a, w('attn.wqkv')), w('attn.bqkv')); // [B,S,3d]
        const heads = o.transpose(o.reshape(qkv, [0, 0, 3 * H, Dh]), [0, 2, 1, 3]); // [B,3H,S,Dh]
        const [q, kNew, vNew] = o.split(heads, [H, H, H], 1);
        const past = x.past?.[l];
        const k = past ? o.concat([past.k, kNew!], 2) : kNew!;
        const v = past ? o.concat([past.v, vNew!], 2) : vNew!;
        present.push({ k, v });
        const scores = o.add(o.mul(o.matmul(q!, o.transpose(k, [0, 1, 3, 2])), 1 / Math.sqrt(Dh)), x.attnMask);
        const ctx = o.matmul(o.softmax(scores, -1), v); // [B,H,S,Dh]
        const merged = o.reshape(o.transpose(ctx, [0, 2, 1, 3]), [0, 0, c.dModel]);
        return o.add(o.matmul(merged, w('attn.wo')), w('attn.bo'));
      });
      const h1 = o.add(h, attnOut);
      const mlpOut = g.scope('mlp', () => {
        const a = o.layerNorm(h1, w('ln2.scale'), w('ln2.bias'), c.lnEps).y;
        const u = o.gelu(o.add(o.matmul(a, w('mlp.w1')), w('mlp.b1')));
        return o.add(o.matmul(u, w('mlp.w2')), w('mlp.b2'));
      });
      return o.add(h1, mlpOut);
    });
  }
  return g.scope('head', () => {
    const hf = o.layerNorm(h, p['lnf.scale']!, p['lnf.bias']!, c.lnEps).y;
    const logits = o.matmul(hf, o.transpose(p.wte!, [1, 0])); // tied output head
    const values = o.squeeze(o.add(o.matmul(hf, p['value.w']!), p['value.b']!), [-1]);
    return { logits, values, present };
  });
}

/** Declare every parameter as a graph input (training, scoring, sampling sessions). */
export function paramInputs(g: Graph, c: ModelConfig): Record<string, Value> {
  const p: Record<string, Value> = {};
  for (const s of paramSpecs(c)) p[s.name] = g.input(s.name, 'float32', s.shape);
  return p;
}

/** Bake parameters into the graph as initializers (a self-contained exported model). */
export function paramInitializers(g: Graph, c: ModelConfig, weights: Map<string, Float32Array>): Record<string, Value> {
  const p: Record<string, Value> = {};
  for (const s of paramSpecs(c)) p[s.name] = g.initializer(s.name, { dtype: 'float32', shape: s.shape, data: weights.get(s.name)! });
  return p;
}

export const NEG_INF = -1e9;
