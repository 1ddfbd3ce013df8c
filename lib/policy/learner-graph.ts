import type { Graph, Value } from './onnx/graph';
import { gradients } from './onnx/autodiff';
import * as o from './onnx/ops';
import { buildLoss, METRICS, type LossConfig, type LossInputs } from './losses';
import { adamw, type OptimConfig } from './optim';

// The model-independent half of a training graph, shared by the byte model (graphs.ts) and
// Hugging Face decoders (hf/train-graph.ts): the loss's batch inputs, then loss, backward,
// gradient accumulation and clipped AdamW appended after whatever forward produced logits.

export type LearnerSpec = {
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
  /**
   * Whether a `loss_scale` input multiplies the loss before backward (gradients are divided
   * by it again in float32): float16 products would flush small gradients to zero otherwise.
   */
  lossScale?: boolean;
};

/** A trainable tensor: a graph input differentiated and updated under `name`. */
export type Trainable = { name: string; value: Value; shape: number[]; decay: boolean };

/** The loss's per-token batch inputs, all [B, T] and aligned with the predicted token. */
export function lossInputs(g: Graph, s: LearnerSpec): LossInputs {
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
  return li;
}

/**
 * Loss, metrics (`metric.*`), gradients of `params`, and either the accumulated gradients
 * (`new_acc.*`, accumulate mode) or clipped AdamW (`new.*`, `new_m.*`, `new_v.*`,
 * `grad_norm`, `lr`; inputs `step`, `m.*`, `v.*`). Gradients of earlier micro-batches come
 * in as `acc.*` when `withAccumulator`.
 */
export function appendLearner(g: Graph, s: LearnerSpec, logits: Value, values: Value, li: LossInputs, params: Trainable[]): void {
  const { loss, metrics } = buildLoss(g, s.loss, logits, values, li);
  for (const m of METRICS) g.output(metrics[m], `metric.${m}`);
  const scale = s.lossScale ? g.input('loss_scale', 'float32', []) : undefined;
  let grads = gradients(
    scale ? o.mul(loss, scale) : loss,
    params.map((p) => p.value),
  );
  if (scale) grads = grads.map((d) => o.div(d, scale));
  if (s.withAccumulator) {
    const acc = params.map((p) => g.input(`acc.${p.name}`, 'float32', p.shape));
    grads = grads.map((d, i) => o.add(d, acc[i]!));
  }
  if (s.mode === 'accumulate') {
    grads.forEach((d, i) => g.output(d, `new_acc.${params[i]!.name}`));
    return;
  }
  const step = g.input('step', 'float32', []);
  const entries = params.map((p, i) => ({
    param: p.value,
    grad: grads[i]!,
    m: g.input(`m.${p.name}`, 'float32', p.shape),
    v: g.input(`v.${p.name}`, 'float32', p.shape),
    decay: p.decay,
  }));
  const { updated, gradNorm, lr } = adamw(g, s.optim, step, entries);
  updated.forEach((u, i) => {
    const n = params[i]!.name;
    g.output(u.param, `new.${n}`);
    g.output(u.m, `new_m.${n}`);
    g.output(u.v, `new_v.${n}`);
  });
  g.output(gradNorm, 'grad_norm');
  g.output(lr, 'lr');
}
