import { Graph, type Value } from '../onnx/graph';
import * as o from '../onnx/ops';
import { appendLearner, lossInputs, type LearnerSpec, type Trainable } from '../learner-graph';
import { tempered, tokenLogprobs } from '../losses';
import type { HfModelConfig } from './config';
import { allLogits, hfForward, type LinearAdapter } from './forward';
import { loraAdapter, loraSpecs, type LoraConfig } from './lora';
import { hfParamSpecs } from './weights';

// Training and scoring graphs for Hugging Face decoders: the sampling graphs' forward
// (forward.ts) on static [B, T] batches, then the byte model's learner (learner-graph.ts).
// Full fine-tuning differentiates every checkpoint weight; LoRA differentiates only the
// adapter factors, and the base weights stay plain inputs (frozen, fed from the one copy).

export type HfTrainGraphSpec = LearnerSpec & { config: HfModelConfig; lora?: LoraConfig };

/**
 * Which weights decay under AdamW: matrices (embeddings, projections, LoRA factors), not
 * norm scales or biases (transformers Trainer's convention).
 */
export const decays = (shape: number[]) => shape.length === 2;

type Built = { g: Graph; params: Record<string, Value>; adapt?: LinearAdapter; trainables: Trainable[] };

function declare(name: string, c: HfModelConfig, lora: LoraConfig | undefined): Built {
  const g = new Graph(name);
  const params: Record<string, Value> = {};
  const trainables: Trainable[] = [];
  for (const s of hfParamSpecs(c)) {
    params[s.name] = g.input(s.name, 'float32', s.shape);
    if (!lora) trainables.push({ name: s.name, value: params[s.name]!, shape: s.shape, decay: decays(s.shape) });
  }
  if (!lora) return { g, params, trainables };
  for (const s of loraSpecs(c, lora)) {
    params[s.name] = g.input(s.name, 'float32', s.shape);
    trainables.push({ name: s.name, value: params[s.name]!, shape: s.shape, decay: decays(s.shape) });
  }
  return { g, params, trainables, adapt: loraAdapter(g, c, lora, params) };
}

function batchInputs(g: Graph, B: number, T: number) {
  return {
    tokens: g.input('tokens', 'int64', [B, T]),
    positions: g.input('positions', 'int64', [B, T]),
    attnMask: g.input('attn_mask', 'float32', [B, 1, T, T]),
  };
}

/** The trainable tensors' names, in graph order (full: checkpoint names; LoRA: PEFT names). */
export function hfTrainableNames(c: HfModelConfig, lora?: LoraConfig): string[] {
  return lora ? loraSpecs(c, lora).map((s) => s.name) : hfParamSpecs(c).map((s) => s.name);
}

/**
 * Forward + loss + backward (+ clip + AdamW), with the byte model's feeds (batch.ts's
 * packBatch) and outputs (`metric.*`, `new_acc.*` or `new.*` / `new_m.*` / `new_v.*`,
 * `grad_norm`, `lr`). HF checkpoints have no value head, so PPO is refused.
 */
export function buildHfTrainGraph(s: HfTrainGraphSpec): Graph {
  if (s.loss.kind === 'ppo') throw new Error('ppo needs a value head, which Hugging Face checkpoints lack: train them with grpo or sft');
  const { g, params, adapt, trainables } = declare(`hf_train_${s.loss.kind}_${s.mode}${s.lora ? '_lora' : ''}`, s.config, s.lora);
  const x = batchInputs(g, s.batch, s.seqLen);
  const li = lossInputs(g, s);
  const out = hfForward(g, s.config, params, x, adapt);
  const logits = allLogits(s.config, params, out);
  // No critic: the loss reads values only for PPO.
  appendLearner(g, s, logits, g.scalar(0, 'float32'), li, trainables);
  return g;
}

/** Token logprobs and entropies of given sequences at `temperature` (old and reference policies). */
export function buildHfScoreGraph(c: HfModelConfig, batch: number, seqLen: number, temperature = 1, lora?: LoraConfig): Graph {
  const { g, params, adapt } = declare('hf_score', c, lora);
  const x = batchInputs(g, batch, seqLen);
  const targets = g.input('targets', 'int64', [batch, seqLen]);
  const out = hfForward(g, c, params, x, adapt);
  const { logp, all } = tokenLogprobs(tempered(allLogits(c, params, out), temperature), targets);
  g.output(logp, 'token_logprobs');
  g.output(o.neg(o.reduceSum(o.mul(o.exp(all), all), [-1])), 'entropy');
  return g;
}
