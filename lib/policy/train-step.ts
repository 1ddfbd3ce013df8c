import type { z } from 'zod';
import { packBatch, TrainSequence, type Aggregation } from './batch';
import type { LearnerSpec } from './learner-graph';
import { LossConfig, METRICS, type LossConfigInput, type MetricName } from './losses';
import { f32, type ort } from './onnx-session';

// One optimizer step over a list of sequences, independent of the model: validate the batch
// against the loss, split it into micro-batches, run the training sessions (accumulating
// gradients, the last one applying AdamW) and refuse non-finite results. The byte Policy and
// the Hugging Face trainer each supply their sessions and tensors.

export type Params = Map<string, ort.Tensor>;

export type StepPlan = {
  loss: LossConfig;
  seqs: TrainSequence[];
  aggregation: Aggregation;
  normTokens?: number;
  withReference: boolean;
  /** Rows per micro-batch, micro-batches, padded sequence length. */
  mb: number;
  K: number;
  T: number;
  stepTokens: number;
  stepSequences: number;
};

/** Validate a step's sequences against the loss and choose its shapes (`seqLenFor` pads and checks the length). */
export function planStep(
  sequences: z.input<typeof TrainSequence>[],
  lossInput: LossConfigInput,
  o: { microBatchSize?: number },
  seqLenFor: (maxTokens: number) => number,
): StepPlan {
  const loss = LossConfig.parse(lossInput);
  const seqs = sequences.map((s) => TrainSequence.parse(s));
  if (!seqs.length) throw new Error('trainStep needs at least one sequence');
  const aggregation: Aggregation = loss.kind === 'sft' ? 'token' : loss.aggregation;
  const normTokens = loss.kind === 'sft' ? undefined : loss.normTokens;
  if (aggregation === 'token-sum-norm' && !normTokens)
    throw new Error("aggregation 'token-sum-norm' needs normTokens (the per-sequence token budget the token sums are divided by)");
  const withReference = loss.kind !== 'sft' && seqs.every((s) => s.refLogprobs);
  if (loss.kind !== 'sft') {
    if (loss.klCoef > 0 && !withReference) throw new Error('klCoef > 0 needs refLogprobs on every sequence');
    if (seqs.some((s) => s.advantages === undefined || !s.oldLogprobs)) throw new Error(`${loss.kind} needs advantages and oldLogprobs on every sequence`);
    if (loss.kind === 'ppo' && seqs.some((s) => !s.oldValues || !s.returns)) throw new Error('ppo needs oldValues and returns on every sequence');
  }
  const mb = Math.max(1, Math.min(o.microBatchSize ?? seqs.length, seqs.length));
  const K = Math.ceil(seqs.length / mb);
  const T = seqLenFor(Math.max(...seqs.map((s) => s.tokens.length)));
  const tokenCounts = seqs.map((s) => s.lossMask.slice(1).reduce((a, b) => a + b, 0));
  const stepTokens = tokenCounts.reduce((a, b) => a + b, 0);
  const stepSequences = tokenCounts.filter((c) => c > 0).length;
  return { loss, seqs, aggregation, normTokens, withReference, mb, K, T, stepTokens, stepSequences };
}

/** The learner part of the training graph a micro-batch needs. */
export function learnerSpec(plan: StepPlan, optim: LearnerSpec['optim'], mode: LearnerSpec['mode'], withAccumulator: boolean): LearnerSpec {
  return { loss: plan.loss, optim, batch: plan.mb, seqLen: plan.T, mode, withAccumulator, withReference: plan.withReference };
}

export type StepResult = {
  sums: Record<MetricName, number>;
  params: Params;
  m: Params;
  v: Params;
  gradNorm: number;
  lr: number;
  /** The loss, the gradient norm or an updated weight was not finite: nothing should change. */
  skipped: boolean;
};

/**
 * Run a planned step. `trainable` names the tensors the graph updates; `feeds` holds every
 * weight input (trainable and frozen); `session(spec)` returns the training session for a
 * micro-batch's learner spec. The loss is normalised over the whole step, so accumulation
 * over micro-batches equals one big batch.
 */
export async function runStep(
  plan: StepPlan,
  o: {
    pad: number;
    optim: LearnerSpec['optim'];
    trainable: string[];
    feeds: Record<string, ort.Tensor>;
    moments: { m: Params; v: Params };
    step: number;
    session: (spec: LearnerSpec) => Promise<ort.InferenceSession>;
  },
): Promise<StepResult> {
  const sums = Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<MetricName, number>;
  let acc: Record<string, ort.Tensor> = {};
  let last: ort.InferenceSession.OnnxValueMapType | undefined;
  const { mb, K } = plan;
  for (let k = 0; k < K; k++) {
    const chunk = plan.seqs.slice(k * mb, (k + 1) * mb);
    const feeds = packBatch(chunk, {
      rows: mb,
      seqLen: plan.T,
      pad: o.pad,
      aggregation: plan.aggregation,
      stepTokens: plan.stepTokens,
      stepSequences: plan.stepSequences,
      normTokens: plan.normTokens,
    });
    const mode = k === K - 1 ? 'update' : 'accumulate';
    const session = await o.session(learnerSpec(plan, o.optim, mode, k > 0));
    const all: Record<string, ort.Tensor> = { ...o.feeds, ...feeds, ...acc };
    if (mode === 'update') {
      all.step = f32([o.step + 1], []);
      for (const [n, t] of o.moments.m) all[`m.${n}`] = t;
      for (const [n, t] of o.moments.v) all[`v.${n}`] = t;
    }
    const res = await session.run(pick(session, all));
    for (const m of METRICS) sums[m] += Number((res[`metric.${m}`] as ort.Tensor).data[0]);
    if (mode === 'accumulate') {
      acc = {};
      for (const n of o.trainable) acc[`acc.${n}`] = res[`new_acc.${n}`] as ort.Tensor;
    }
    last = res;
  }
  const params: Params = new Map();
  const m: Params = new Map();
  const v: Params = new Map();
  for (const n of o.trainable) {
    params.set(n, last![`new.${n}`] as ort.Tensor);
    m.set(n, last![`new_m.${n}`] as ort.Tensor);
    v.set(n, last![`new_v.${n}`] as ort.Tensor);
  }
  const gradNorm = Number((last!.grad_norm as ort.Tensor).data[0]);
  // One NaN/Infinity anywhere poisons every weight after this step and every later one:
  // the caller keeps the previous weights and moments instead and says so.
  const skipped = !Number.isFinite(sums.loss) || !Number.isFinite(gradNorm) || ![...params.values()].every(allFinite);
  return { sums, params, m, v, gradNorm, lr: Number((last!.lr as ort.Tensor).data[0]), skipped };
}

function allFinite(t: ort.Tensor): boolean {
  const a = t.data as Float32Array;
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) return false;
  return true;
}

/** Only the feeds a session declares (onnxruntime rejects unknown inputs). */
export function pick(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const n of session.inputNames) {
    const t = feeds[n];
    if (!t) throw new Error(`missing feed ${n}`);
    out[n] = t;
  }
  return out;
}
