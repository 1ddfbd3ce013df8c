import { z } from 'zod';
import type { Graph, Value } from '../onnx/graph';
import type { MixedMatmuls } from '../onnx/mixed-precision';
import * as o from '../onnx/ops';
import { Rng } from '@/core/random';
import type { HfModelConfig } from './config';
import { LORA_MODULES, peftTensorName, type LoraModule } from './export-peft';
import type { LinearAdapter } from './forward';

// LoRA as PEFT defines it (no dropout, no rsLoRA/DoRA): a target projection y = x Wᵀ + b
// becomes y + (alpha / r) · (x Aᵀ) Bᵀ with A [r, in] and B [out, r]; the base W stays frozen.
// Tensors carry PEFT's saved names, so an adapter is written as it is held.

export const LoraConfig = z.object({
  rank: z.number().int().positive(),
  alpha: z.number().positive(),
  targetModules: z.array(z.enum(LORA_MODULES)).min(1, 'LoRA needs at least one target module (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj)'),
});
export type LoraConfig = z.infer<typeof LoraConfig>;

/** One LoRA factor: PEFT's name, the base weight it adapts, shape, and which factor it is. */
export type LoraSpec = { name: string; base: string; module: LoraModule; layer: number; factor: 'A' | 'B'; shape: number[] };

const SUB: Record<LoraModule, 'self_attn' | 'mlp'> = {
  q_proj: 'self_attn',
  k_proj: 'self_attn',
  v_proj: 'self_attn',
  o_proj: 'self_attn',
  gate_proj: 'mlp',
  up_proj: 'mlp',
  down_proj: 'mlp',
};

/** [out, in] of a target module's base weight. */
function moduleShape(c: HfModelConfig, m: LoraModule): [number, number] {
  const d = c.hiddenSize;
  const q = c.nHeads * c.headDim;
  const kv = c.nKvHeads * c.headDim;
  const I = c.intermediateSize;
  return { q_proj: [q, d], k_proj: [kv, d], v_proj: [kv, d], o_proj: [d, q], gate_proj: [I, d], up_proj: [I, d], down_proj: [d, I] }[m] as [number, number];
}

/** Every A and B, layer by layer in module order (the order graphs and checkpoints use). */
export function loraSpecs(c: HfModelConfig, lora: LoraConfig): LoraSpec[] {
  const out: LoraSpec[] = [];
  for (let layer = 0; layer < c.nLayers; layer++)
    for (const mod of LORA_MODULES) {
      if (!lora.targetModules.includes(mod)) continue;
      const [outDim, inDim] = moduleShape(c, mod);
      const base = `model.layers.${layer}.${SUB[mod]}.${mod}.weight`;
      out.push({ name: peftTensorName(layer, mod, 'A'), base, module: mod, layer, factor: 'A', shape: [lora.rank, inDim] });
      out.push({ name: peftTensorName(layer, mod, 'B'), base, module: mod, layer, factor: 'B', shape: [outDim, lora.rank] });
    }
  return out;
}

/**
 * PEFT's initialisation: A as nn.Linear's kaiming_uniform_(a=√5), i.e. U(−1/√in, 1/√in),
 * and B zeros, so the adapted model starts equal to the base.
 */
export function initLora(c: HfModelConfig, lora: LoraConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  for (const s of loraSpecs(c, lora)) {
    const a = new Float32Array(s.shape[0]! * s.shape[1]!);
    if (s.factor === 'A') {
      const bound = 1 / Math.sqrt(s.shape[1]!);
      for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
    }
    out.set(s.name, a);
  }
  return out;
}

/**
 * The forward's adapter adding each target's low-rank term, with A and B taken from `p` by
 * PEFT name; its products computed as the forward's (`mm`: float32 or half operands).
 */
export function loraAdapter(g: Graph, c: HfModelConfig, lora: LoraConfig, p: Record<string, Value>, mm: MixedMatmuls): LinearAdapter {
  const byBase = new Map<string, { A: Value; B: Value }>();
  for (const s of loraSpecs(c, lora)) {
    const e = byBase.get(s.base) ?? ({} as { A: Value; B: Value });
    e[s.factor] = p[s.name]!;
    byBase.set(s.base, e);
  }
  const scaling = lora.alpha / lora.rank;
  if (mm.mode.half) {
    // Mixed precision: the product takes the merged weight W + (alpha/r)·B·A (formed in float32,
    // then rounded like any weight), which is what the sampler multiplies by (HfPolicy merges
    // the adapter). Unmerged, the two would round differently and disagree by 1.8e-2 nats a
    // token in bf16. The gradients of A and B are the same function's. The costs: backward forms
    // each target's full [out, in] weight gradient (as full fine-tuning does for those matrices),
    // and an update smaller than half a half-type step of W shows in the forward only once the
    // factors have moved enough (PEFT under autocast, unmerged, would see it at once).
    return {
      weight: (weight, w) => {
        const ab = byBase.get(weight);
        if (!ab) return w;
        return g.scope('lora', () => o.add(w, o.gemm(ab.B, ab.A, null, { alpha: scaling }))); // [out, in]
      },
    };
  }
  return {
    output: (weight, x, y) => {
      const ab = byBase.get(weight);
      if (!ab) return y;
      return g.scope('lora', () => {
        const down = mm.gemm([x, ab.A], [x.shape![0]!, ab.A.shape![0]!], { transB: 1 }); // [N, r]
        return o.add(y, mm.gemm([down, ab.B], [x.shape![0]!, ab.B.shape![0]!], { transB: 1, alpha: { float: scaling } })); // [N, out]
      });
    },
  };
}
