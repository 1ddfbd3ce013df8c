import { Graph, type Value } from './onnx/graph';
import { gradients } from './onnx/autodiff';
import * as o from './onnx/ops';
import { forward, paramInitializers, paramInputs, paramSpecs, type ModelConfig } from './model';
import { buildLoss, METRICS, tempered, tokenLogprobs, type LossConfig, type LossInputs } from './losses';
import { adamw, type OptimConfig } from './optim';

// The session graphs: training (forward + loss + backward [+ clip + AdamW]), scoring
// (token logprobs and values, no gradients) and inference (with or without a KV cache).

export type TrainGraphSpec = {
  model: ModelConfig;
  loss: LossConfig;
  optim: OptimConfig;
  batch: number;
  seqLen: number;
  /** 'update' applies the optimizer; 'accumulate' only adds this micro-batch's gradients. */
  mode: 'update' | 'accumulate';
  /** Whether gradients accumulated from earlier micro-batches come in as inputs. */
  withAccumulator: boolean;
  /** Whether reference-policy logprobs come in (KL metric and penalty). */
  withReference: boolean;
};

function batchInputs(g: Graph, B: number, T: number) {
  return {
    tokens: g.input('tokens', 'int64', [B, T]),
    positions: g.input('positions', 'int64', [B, T]),
    attnMask: g.input('attn_mask', 'float32', [B, 1, T, T]),
  };
}

export function buildTrainGraph(s: TrainGraphSpec): Graph {
  const g = new Graph(`train_${s.loss.kind}_${s.mode}`);
  const specs = paramSpecs(s.model);
  const p = paramInputs(g, s.model);
  const { tokens, positions, attnMask } = batchInputs(g, s.batch, s.seqLen);
  const bt = [s.batch, s.seqLen];
  const li: LossInputs = {
    targets: g.input('targets', 'int64', bt),
    weights: g.input('weights', 'float32', bt),
    mask: g.input('mask', 'float32', bt),
  };
  if (s.loss.kind !== 'sft') {
    li.advantages = g.input('advantages', 'float32', bt);
    li.oldLogprobs = g.input('old_logprobs', 'float32', bt);
    if (s.withReference) li.refLogprobs = g.input('ref_logprobs', 'float32', bt);
  }
  if (s.loss.kind === 'ppo') {
    li.oldValues = g.input('old_values', 'float32', bt);
    li.returns = g.input('returns', 'float32', bt);
  }
  const out = forward(g, s.model, p, { tokens, positions, attnMask });
  const { loss, metrics } = buildLoss(g, s.loss, out.logits, out.values, li);
  for (const m of METRICS) g.output(metrics[m], `metric.${m}`);
  const params = specs.map((sp) => p[sp.name]!);
  let grads = gradients(loss, params);
  if (s.withAccumulator) {
    const acc = specs.map((sp) => g.input(`acc.${sp.name}`, 'float32', sp.shape));
    grads = grads.map((d, i) => o.add(d, acc[i]!));
  }
  if (s.mode === 'accumulate') {
    grads.forEach((d, i) => g.output(d, `new_acc.${specs[i]!.name}`));
    return g;
  }
  const step = g.input('step', 'float32', []);
  const entries = specs.map((sp, i) => ({
    param: params[i]!,
    grad: grads[i]!,
    m: g.input(`m.${sp.name}`, 'float32', sp.shape),
    v: g.input(`v.${sp.name}`, 'float32', sp.shape),
    decay: sp.decay,
  }));
  const { updated, gradNorm, lr } = adamw(g, s.optim, step, entries);
  updated.forEach((u, i) => {
    const n = specs[i]!.name;
    g.output(u.param, `new.${n}`);
    g.output(u.m, `new_m.${n}`);
    g.output(u.v, `new_v.${n}`);
  });
  g.output(gradNorm, 'grad_norm');
  g.output(lr, 'lr');
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
