import { Graph, type Value } from './onnx/graph';
import * as o from './onnx/ops';
import { forward, paramInitializers, paramInputs, paramSpecs, type ModelConfig } from './model';
import { tempered, tokenLogprobs } from './losses';
import { appendLearner, lossInputs, type LearnerSpec } from './learner-graph';

// The session graphs: training (forward, then learner-graph.ts: loss + backward [+ clip + AdamW]), scoring
// (token logprobs and values, no gradients) and inference (with or without a KV cache).

export type TrainGraphSpec = LearnerSpec & { model: ModelConfig };

function batchInputs(g: Graph, B: number, T: number) {
  return {
    tokens: g.input('tokens', 'int64', [B, T]),
    positions: g.input('positions', 'int64', [B, T]),
    attnMask: g.input('attn_mask', 'float32', [B, 1, T, T]),
  };
}

export function buildTrainGraph(s: TrainGraphSpec): Graph {
  const g = new Graph(`train_${s.loss.kind}_${s.mode}`);
  const p = paramInputs(g, s.model);
  const { tokens, positions, attnMask } = batchInputs(g, s.batch, s.seqLen);
  const li = lossInputs(g, s);
  const out = forward(g, s.model, p, { tokens, positions, attnMask });
  const params = paramSpecs(s.model).map((sp) => ({ name: sp.name, value: p[sp.name]!, shape: sp.shape, decay: sp.decay }));
  appendLearner(g, s, out.logits, out.values, li, params);
  return g;
}

/**
 * Token logprobs, entropies and values of given sequences (old/reference policy, PPO values),
 * of the distribution at `temperature` (the training graph's, so reference logprobs match).
 */
export function buildScoreGraph(model: ModelConfig, batch: number, seqLen: number, temperature = 1): Graph {
  const g = new Graph('score');
  const p = paramInputs(g, model);
  const { tokens, positions, attnMask } = batchInputs(g, batch, seqLen);
  const targets = g.input('targets', 'int64', [batch, seqLen]);
  const out = forward(g, model, p, { tokens, positions, attnMask });
  const { logp, all } = tokenLogprobs(tempered(out.logits, temperature), targets);
  g.output(logp, 'token_logprobs');
  g.output(o.neg(o.reduceSum(o.mul(o.exp(all), all), [-1])), 'entropy');
  g.output(out.values, 'values');
  return g;
}

export type InferenceGraphSpec = {
  model: ModelConfig;
  /** Whether K/V of earlier positions come in (incremental decoding). */
  withPast: boolean;
  /** Bake these weights in (a standalone exported model); otherwise weights are inputs. */
  weights?: Map<string, Float32Array>;
  /** Also output logits for every position (exported models). */
  allLogits?: boolean;
};

/**
 * Inference: inputs tokens/positions [batch, seq], attn_mask [batch, 1, seq, past+seq] and
 * optionally past_k.L / past_v.L; outputs the last position's log-probabilities
 * [batch, vocab] (the sampler reads the chosen token's logprob from it), its value, and
 * present_k.L / present_v.L for the next step.
 */
export function buildInferenceGraph(s: InferenceGraphSpec): Graph {
  const c = s.model;
  const g = new Graph(s.withPast ? 'decode' : 'prefill');
  const p = s.weights ? paramInitializers(g, c, s.weights) : paramInputs(g, c);
  const H = c.nHeads;
  const Dh = c.dModel / H;
  const tokens = g.input('tokens', 'int64', ['batch', 'seq']);
  const positions = g.input('positions', 'int64', ['batch', 'seq']);
  const attnMask = g.input('attn_mask', 'float32', ['batch', 1, 'seq', 'total']);
  let past: { k: Value; v: Value }[] | undefined;
  if (s.withPast) {
    past = [];
    for (let l = 0; l < c.nLayers; l++) {
      past.push({
        k: g.input(`past_k.${l}`, 'float32', ['batch', H, 'past', Dh]),
        v: g.input(`past_v.${l}`, 'float32', ['batch', H, 'past', Dh]),
      });
    }
  }
  const out = forward(g, c, p, { tokens, positions, attnMask, past });
  const last = g.scalar(-1, 'int64');
  const lastLogits = o.gather(out.logits, last, 1);
  g.output(o.logSoftmax(lastLogits, -1), 'logprobs');
  g.output(o.gather(out.values, last, 1), 'value');
  if (s.allLogits) g.output(out.logits, 'logits');
  out.present.forEach((kv, l) => {
    g.output(kv.k, `present_k.${l}`);
    g.output(kv.v, `present_v.${l}`);
  });
  return g;
}
