import { Graph, type Value } from '../onnx/graph';
import { FLOAT32_MATMULS, MixedMatmuls, type MatmulMode } from '../onnx/mixed-precision';
import * as o from '../onnx/ops';
import type { HfModelConfig } from './config';
import { allLogits, hfForward, lastLogits } from './forward';
import { hfParamSpecs } from './weights';

export type HfInferenceGraphSpec = {
  config: HfModelConfig;
  /** Whether K/V of earlier positions come in (incremental decoding). */
  withPast: boolean;
  /** Also output `logits` for every position (parity checks, scoring). */
  allLogits?: boolean;
  /** Matrix products in float32 (default) or on half operands over the float32 weights. */
  matmuls?: MatmulMode;
};

/**
 * Prefill / decode for a Hugging Face decoder, with the same feeds and outputs as the byte
 * model's inference graphs (sample.ts drives both): tokens / positions [batch, seq],
 * attn_mask [batch, 1, seq, past + seq], past_k.L / past_v.L [batch, kv_heads, past,
 * head_dim]; outputs `logprobs` [batch, vocab] of the last position and present_k.L /
 * present_v.L. Every weight is a graph input under its checkpoint name, fed from tensors
 * the process holds once and shares between sessions.
 */
export function buildHfInferenceGraph(s: HfInferenceGraphSpec): Graph {
  const c = s.config;
  const g = new Graph(s.withPast ? 'hf_decode' : 'hf_prefill');
  const p: Record<string, Value> = {};
  for (const sp of hfParamSpecs(c)) p[sp.name] = g.input(sp.name, 'float32', sp.shape);
  const tokens = g.input('tokens', 'int64', ['batch', 'seq']);
  const positions = g.input('positions', 'int64', ['batch', 'seq']);
  const attnMask = g.input('attn_mask', 'float32', ['batch', 1, 'seq', 'total']);
  const past = s.withPast
    ? Array.from({ length: c.nLayers }, (_, l) => ({
        k: g.input(`past_k.${l}`, 'float32', ['batch', c.nKvHeads, 'past', c.headDim]),
        v: g.input(`past_v.${l}`, 'float32', ['batch', c.nKvHeads, 'past', c.headDim]),
      }))
    : undefined;
  const out = hfForward(g, c, p, { tokens, positions, attnMask, past }, undefined, new MixedMatmuls(s.matmuls ?? FLOAT32_MATMULS));
  g.output(o.logSoftmax(lastLogits(c, p, out), -1), 'logprobs');
  if (s.allLogits) g.output(allLogits(c, p, out), 'logits');
  out.present.forEach((kv, l) => {
    g.output(kv.k, `present_k.${l}`);
    g.output(kv.v, `present_v.${l}`);
  });
  return g;
}
