import { Graph, type Value } from '../onnx/graph';
import { FLOAT32_MATMULS, MixedMatmuls, type MatmulMode } from '../onnx/mixed-precision';
import * as o from '../onnx/ops';
import { appendLearner, lossInputs, type LearnerSpec, type Trainable } from '../learner-graph';
import { tempered, tokenLogprobs } from '../losses';
import type { HfModelConfig } from './config';
import { allLogits, hfForward, linear, toBatch, type LinearAdapter } from './forward';
import { loraAdapter, loraSpecs, type LoraConfig } from './lora';
import { hfParamSpecs } from './weights';

// Training and scoring graphs for Hugging Face decoders: the sampling graphs' forward
// (forward.ts) on static [B, T] batches, then the byte model's learner (learner-graph.ts).
// Full fine-tuning differentiates every checkpoint weight; LoRA differentiates only the
// adapter factors, and the base weights stay plain inputs (frozen, fed from the one copy).

export type HfTrainGraphSpec = LearnerSpec & {
  config: HfModelConfig;
  lora?: LoraConfig;
  valueHead?: boolean;
  /** Matrix products in float32 (default) or on half operands over the float32 weights. */
  matmuls?: MatmulMode;
};

/**
 * PPO's critic on a Hugging Face decoder: a linear head on the final (normed) hidden state,
 * under TRL's names (`AutoModelForCausalLMWithValueHead`'s `v_head.summary`). It is not part
 * of the checkpoint: the trainer creates it (zeros), trains it in full and LoRA alike, and
 * the run's checkpoints carry it; exports leave it out.
 */
export const valueHeadSpecs = (c: HfModelConfig) => [
  { name: 'v_head.summary.weight', shape: [1, c.hiddenSize] },
  { name: 'v_head.summary.bias', shape: [1] },
];

/**
 * Which weights decay under AdamW: matrices (embeddings, projections, LoRA factors), not
 * norm scales or biases (transformers Trainer's convention).
 */
export const decays = (shape: number[]) => shape.length === 2;

type Built = { g: Graph; params: Record<string, Value>; adapt?: LinearAdapter; trainables: Trainable[]; mm: MixedMatmuls };

function declare(name: string, c: HfModelConfig, lora: LoraConfig | undefined, valueHead = false, matmuls = FLOAT32_MATMULS): Built {
  const g = new Graph(name);
  const params: Record<string, Value> = {};
  const trainables: Trainable[] = [];
  const train = (s: { name: string; shape: number[] }) => {
    params[s.name] = g.input(s.name, 'float32', s.shape);
    trainables.push({ name: s.name, value: params[s.name]!, shape: s.shape, decay: decays(s.shape) });
  };
  for (const s of hfParamSpecs(c)) {
    if (lora) params[s.name] = g.input(s.name, 'float32', s.shape);
    else train(s);
  }
  if (lora) for (const s of loraSpecs(c, lora)) train(s);
  if (valueHead) for (const s of valueHeadSpecs(c)) train(s);
  const mm = new MixedMatmuls(matmuls);
  return { g, params, trainables, mm, adapt: lora ? loraAdapter(g, c, lora, params, mm) : undefined };
}

/** The value head's estimate at every position, [B, T]. */
function values(c: HfModelConfig, p: Record<string, Value>, out: ReturnType<typeof hfForward>): Value {
  const [w, b] = valueHeadSpecs(c).map((s) => p[s.name]!);
  const v = linear(out.hidden, w!, b, out.mm); // [B·T, 1]
  return o.squeeze(toBatch(v, out.batchShape, [1], [...out.dims, 1]), [-1]);
}

function batchInputs(g: Graph, B: number, T: number) {
  return {
    tokens: g.input('tokens', 'int64', [B, T]),
    positions: g.input('positions', 'int64', [B, T]),
    attnMask: g.input('attn_mask', 'float32', [B, 1, T, T]),
  };
}

/** The trainable tensors' names, in graph order (full: checkpoint names; LoRA: PEFT names; then the value head's). */
export function hfTrainableNames(c: HfModelConfig, lora?: LoraConfig, valueHead = false): string[] {
  return [...(lora ? loraSpecs(c, lora) : hfParamSpecs(c)), ...(valueHead ? valueHeadSpecs(c) : [])].map((s) => s.name);
}

/**
 * Forward + loss + backward (+ clip + AdamW), with the byte model's feeds (batch.ts's
 * packBatch) and outputs (`metric.*`, `new_acc.*` or `new.*` / `new_m.*` / `new_v.*`,
 * `grad_norm`, `lr`). HF checkpoints have no value head, so PPO is refused.
 */
export function buildHfTrainGraph(s: HfTrainGraphSpec): Graph {
  if (s.loss.kind === 'ppo' && !s.valueHead) throw new Error('ppo needs a value head: create the trainer with valueHead: true');
  const { g, params, adapt, trainables, mm } = declare(`hf_train_${s.loss.kind}_${s.mode}${s.lora ? '_lora' : ''}`, s.config, s.lora, s.valueHead, s.matmuls);
  const x = batchInputs(g, s.batch, s.seqLen);
  const li = lossInputs(g, s);
  const out = hfForward(g, s.config, params, x, adapt, mm);
  const logits = allLogits(s.config, params, out);
  // the loss reads values only for PPO; a value head under another loss gets no gradient
  appendLearner(g, s, logits, s.valueHead ? values(s.config, params, out) : g.scalar(0, 'float32'), li, trainables);
  return g;
}

/** Token logprobs and entropies (and with a value head, values) of given sequences at `temperature` (old and reference policies). */
export function buildHfScoreGraph(
  c: HfModelConfig,
  batch: number,
  seqLen: number,
  temperature = 1,
  lora?: LoraConfig,
  valueHead = false,
  matmuls = FLOAT32_MATMULS,
): Graph {
  const { g, params, adapt, mm } = declare('hf_score', c, lora, valueHead, matmuls);
  const x = batchInputs(g, batch, seqLen);
  const targets = g.input('targets', 'int64', [batch, seqLen]);
  const out = hfForward(g, c, params, x, adapt, mm);
  const { logp, all } = tokenLogprobs(tempered(allLogits(c, params, out), temperature), targets);
  g.output(logp, 'token_logprobs');
  g.output(o.neg(o.reduceSum(o.mul(o.exp(all), all), [-1])), 'entropy');
  if (valueHead) g.output(values(c, params, out), 'values');
  return g;
}
