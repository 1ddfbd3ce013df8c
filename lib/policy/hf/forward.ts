import type { Dim, Graph, Shape, Value } from '../onnx/graph';
import { FLOAT32_MATMULS, MixedMatmuls } from '../onnx/mixed-precision';
import * as o from '../onnx/ops';
import { ropeInvFreq, type HfModelConfig } from './config';

// The forward pass of Llama-family decoders (Llama, Qwen2, Qwen3, Mistral) as ONNX nodes,
// written to match transformers' modeling code op for op: RMSNorm, rotate-half RoPE,
// grouped-query attention with an additive mask, SwiGLU MLP. Hidden states flow as 2-D
// [tokens, features] so every projection is one Gemm with transB=1 against the
// checkpoint's own [out, in] weights (no transposed copy of any weight).

export type HfForwardInputs = {
  tokens: Value; // [B, S] int64
  positions: Value; // [B, S] int64
  /** Additive attention mask [B, 1, S, P + S]: 0 where a query may attend, -1e9 elsewhere. */
  attnMask: Value;
  /** Per layer K and V of earlier positions, [B, KV heads, P, head_dim]. */
  past?: { k: Value; v: Value }[];
};

export type HfForwardOutputs = {
  /** Final-norm hidden states, [B * S, hidden]. */
  hidden: Value;
  /** K (after RoPE) and V per layer, [B, KV heads, P + S, head_dim], for the next step. */
  present: { k: Value; v: Value }[];
  /** [B, S] as a 1-D int64 shape tensor, for reshaping back to batch form. */
  batchShape: Value;
  /** B and S as declared by `tokens`: numbers in training graphs (autodiff needs static shapes), names in sampling ones. */
  dims: [Dim, Dim];
  /** How the forward's matrix products were computed (the output head uses the same). */
  mm: MixedMatmuls;
};

/**
 * A change to the checkpoint's projections (LoRA), by the weight's checkpoint name (e.g.
 * `model.layers.0.self_attn.q_proj.weight`): either extra terms on a projection's output
 * (`output`, given its input [N, in] and output [N, out]), or the weight to multiply by in
 * place of the checkpoint's (`weight`, given it).
 */
export type LinearAdapter = {
  output?: (weight: string, x: Value, y: Value) => Value;
  weight?: (weight: string, w: Value) => Value;
};

/** Y = X Wᵀ + b for X [N, in], W [out, in] (PyTorch's nn.Linear), its product computed as `mm` says. */
export function linear(x: Value, w: Value, b?: Value, mm = new MixedMatmuls(FLOAT32_MATMULS)): Value {
  return mm.gemm(b ? [x, w, b] : [x, w], [x.shape![0]!, w.shape![0]!], { transB: 1 });
}

/** x * 1/sqrt(mean(x², last axis) + eps) * w, as transformers' LlamaRMSNorm in float32. */
export function rmsNorm(x: Value, w: Value, eps: number): Value {
  const variance = o.reduceMean(o.mul(x, x), [-1], true);
  return o.mul(w, o.div(x, o.sqrt(o.add(variance, eps))));
}

/** Reshape to a shape only known at run time: the [B, S] shape tensor followed by `tail`. */
export function toBatch(x: Value, batchShape: Value, tail: number[], shape: Shape): Value {
  const g = x.graph;
  const target = o.concat([batchShape, g.ints(tail)], 0);
  return g.node('Reshape', [x, target], [{ dtype: x.dtype, shape }])[0]!;
}

function unaryOp(op: string, x: Value): Value {
  return x.graph.node(op, [x], [{ dtype: x.dtype, shape: x.shape }])[0]!;
}

/** cos and sin of position × inverse frequency, [B, 1, S, head_dim] (transformers' rotary embedding). */
function rotary(g: Graph, c: HfModelConfig, positions: Value): { cos: Value; sin: Value } {
  const inv = g.constant({ dtype: 'float32', shape: [c.headDim / 2], data: ropeInvFreq(c) }, 'rope_inv_freq');
  const freqs = o.mul(o.unsqueeze(o.cast(positions, 'float32'), [-1]), inv); // [B, S, Dh/2]
  const emb = o.concat([freqs, freqs], -1); // [B, S, Dh]
  return { cos: o.unsqueeze(unaryOp('Cos', emb), [1]), sin: o.unsqueeze(unaryOp('Sin', emb), [1]) };
}

/** x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1] over the halves of head_dim. */
function applyRope(x: Value, rope: { cos: Value; sin: Value }, headDim: number): Value {
  const [x1, x2] = o.split(x, [headDim / 2, headDim / 2], -1);
  const rotated = o.concat([o.neg(x2!), x1!], -1);
  return o.add(o.mul(x, rope.cos), o.mul(rotated, rope.sin));
}

/**
 * `mm` says how matrix products are computed (float32, or half operands with float32 master
 * weights: onnx/mixed-precision.ts); pass the one a LoRA adapter was built with.
 */
export function hfForward(
  g: Graph,
  c: HfModelConfig,
  p: Record<string, Value>,
  x: HfForwardInputs,
  adapt?: LinearAdapter,
  mm = new MixedMatmuls(FLOAT32_MATMULS),
): HfForwardOutputs {
  const { nHeads: H, nKvHeads: KV, headDim: Dh } = c;
  const dims = x.tokens.shape as [Dim, Dim];
  const [B, S] = dims;
  const nRep = H / KV;
  const w = (name: string) => {
    const v = p[name];
    if (!v) throw new Error(`forward: no parameter ${name}`);
    return v;
  };
  const opt = (name: string) => p[name];
  /** A checkpoint projection `name` (e.g. `model.layers.0.mlp.up_proj`) applied to x [N, in]. */
  const proj = (x: Value, name: string) => {
    const weight = `${name}.weight`;
    const y = linear(x, adapt?.weight ? adapt.weight(weight, w(weight)) : w(weight), opt(`${name}.bias`), mm);
    return adapt?.output ? adapt.output(weight, x, y) : y;
  };
  const batchShape = g.node('Shape', [x.tokens], [{ dtype: 'int64', shape: [2] }])[0]!;
  let h = g.scope('embed', () => o.gather(w('model.embed_tokens.weight'), o.reshape(x.tokens, [-1]))); // [N, d]
  const rope = g.scope('rope', () => rotary(g, c, x.positions));
  const mask = o.unsqueeze(x.attnMask, [1]); // [B, 1, 1, S, T] against scores [B, KV, nRep, S, T]
  const present: { k: Value; v: Value }[] = [];
  for (let l = 0; l < c.nLayers; l++) {
    const L = `model.layers.${l}`;
    h = g.scope(`layer${l}`, () => {
      const attnOut = g.scope('attn', () => {
        const a = rmsNorm(h, w(`${L}.input_layernorm.weight`), c.rmsNormEps);
        const heads = (name: string, n: number, norm?: string) => {
          const y = proj(a, `${L}.self_attn.${name}`);
          let y4 = toBatch(y, batchShape, [n, Dh], [B, S, n, Dh]);
          if (norm) y4 = rmsNorm(y4, w(`${L}.self_attn.${norm}.weight`), c.rmsNormEps);
          return o.transpose(y4, [0, 2, 1, 3]); // [B, n, S, Dh]
        };
        const q = applyRope(heads('q_proj', H, c.qkNorm ? 'q_norm' : undefined), rope, Dh);
        const kNew = applyRope(heads('k_proj', KV, c.qkNorm ? 'k_norm' : undefined), rope, Dh);
        const vNew = heads('v_proj', KV);
        const past = x.past?.[l];
        const k = past ? o.concat([past.k, kNew], 2) : kNew;
        const v = past ? o.concat([past.v, vNew], 2) : vNew;
        present.push({ k, v });
        // Grouped-query attention without repeating K/V: query head h uses KV head h / nRep,
        // which is what splitting the head axis into [KV, nRep] and broadcasting gives.
        const qg = o.reshape(q, [0, KV, nRep, -1, Dh]); // [B, KV, nRep, S, Dh]
        const kt = o.unsqueeze(o.transpose(k, [0, 1, 3, 2]), [2]); // [B, KV, 1, Dh, T]
        const scores = o.add(o.mul(mm.matmul(qg, kt), 1 / Math.sqrt(Dh)), mask);
        const ctx = mm.matmul(o.softmax(scores, -1), o.unsqueeze(v, [2])); // [B, KV, nRep, S, Dh]
        const merged = o.reshape(o.transpose(o.reshape(ctx, [0, H, -1, Dh]), [0, 2, 1, 3]), [-1, H * Dh]);
        return proj(merged, `${L}.self_attn.o_proj`);
      });
      const h1 = o.add(h, attnOut);
      const mlpOut = g.scope('mlp', () => {
        const a = rmsNorm(h1, w(`${L}.post_attention_layernorm.weight`), c.rmsNormEps);
        const gate = proj(a, `${L}.mlp.gate_proj`);
        const up = proj(a, `${L}.mlp.up_proj`);
        return proj(o.mul(o.mul(gate, o.sigmoid(gate)), up), `${L}.mlp.down_proj`);
      });
      return o.add(h1, mlpOut);
    });
  }
  const hidden = g.scope('norm', () => rmsNorm(h, w('model.norm.weight'), c.rmsNormEps));
  return { hidden, present, batchShape, dims, mm };
}

/** The output projection's weight: lm_head, or the embedding when tied. */
export function headWeight(c: HfModelConfig, p: Record<string, Value>): Value {
  return p[c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight']!;
}

/** Logits of every position, [B, S, vocab]. */
export function allLogits(c: HfModelConfig, p: Record<string, Value>, out: HfForwardOutputs): Value {
  return toBatch(linear(out.hidden, headWeight(c, p), undefined, out.mm), out.batchShape, [c.vocabSize], [...out.dims, c.vocabSize]);
}

/** Logits of each row's last position only, [B, vocab] (what sampling needs). */
export function lastLogits(c: HfModelConfig, p: Record<string, Value>, out: HfForwardOutputs): Value {
  const g = out.hidden.graph;
  const h3 = toBatch(out.hidden, out.batchShape, [c.hiddenSize], [...out.dims, c.hiddenSize]);
  const last = o.gather(h3, g.scalar(-1, 'int64'), 1); // [B, hidden]
  return linear(last, headWeight(c, p), undefined, out.mm);
}
