import { z } from 'zod';
import { pick, topKIndices } from './pick-token';
import { NEG_INF, type ModelConfig } from './model';
import { Rng } from '@/core/random';
import { f32, i64, ort } from './onnx-session';

export const SampleOptions = z.object({
  maxNewTokens: z.number().int().positive().default(64),
  /** 0 means greedy. */
  temperature: z.number().min(0).default(1),
  topP: z.number().gt(0).max(1).default(1),
  /** 0 disables top-k. */
  topK: z.number().int().min(0).default(0),
  /** Token-id sequences that end a completion (included in its tokens). */
  stop: z.array(z.array(z.number().int())).default([]),
  /** End a completion at this token (normally EOS). */
  eos: z.number().int().optional(),
  seed: z.number().int().default(0),
  /** false recomputes the whole prefix each step (for checks and benchmarks). */
  kvCache: z.boolean().default(true),
  /** also record the n likeliest tokens at each step with their tempered logprobs (OpenAI's top_logprobs) */
  topLogprobs: z.number().int().min(0).max(20).default(0),
});
export type SampleOptions = z.infer<typeof SampleOptions>;
export type SampleOptionsInput = z.input<typeof SampleOptions>;

export type Completion = {
  promptTokens: number[];
  tokens: number[];
  /**
   * Log-probability of each chosen token under the distribution it was drawn from: the
   * policy at the sampling temperature, log softmax(logits / T), which the training graph
   * recomputes with the same T. Top-k/top-p truncation is not renormalised in (see
   * docs/policy.md). At temperature 0 (greedy, never trained on) it is the T = 1 logprob.
   */
  logprobs: number[];
  /** The value head at the state before each chosen token (PPO's old values). */
  values: number[];
  /** with `topLogprobs` n: the n likeliest tokens at each step, likeliest first, logprobs as `logprobs`'s */
  top?: { id: number; logprob: number }[][];
  finishReason: 'eos' | 'stop' | 'length';
};

export type SamplerSessions = {
  prefill: ort.InferenceSession;
  decode: ort.InferenceSession;
  params: Record<string, ort.Tensor>;
  /** What generation needs of a model (the byte model's config, or a Hugging Face model's). */
  model: Pick<ModelConfig, 'vocabSize' | 'nLayers' | 'maxSeqLen'>;
  pad: number;
};

/**
 * Batched generation. Prompts are left-padded; positions and the attention mask skip the
 * padding so each row computes exactly what it would alone. Every row draws from its own
 * RNG forked from the seed, so a run replays token for token.
 */
export async function generate(
  s: SamplerSessions,
  prompts: number[][],
  input: SampleOptionsInput,
  /** called with each row's chosen token as it is chosen (streaming); returning true ends that row there (finish reason `stop`) */
  onToken?: (row: number, id: number) => boolean | void,
): Promise<Completion[]> {
  const opts = SampleOptions.parse(input);
  const B = prompts.length;
  if (B === 0) return [];
  if (prompts.some((p) => p.length === 0)) throw new Error('every prompt needs at least one token (start with BOS)');
  const P0 = Math.max(...prompts.map((p) => p.length));
  if (P0 + opts.maxNewTokens > s.model.maxSeqLen) {
    throw new Error(`prompt (${P0}) + maxNewTokens (${opts.maxNewTokens}) exceeds the model's maxSeqLen ${s.model.maxSeqLen}`);
  }
  const pads = prompts.map((p) => P0 - p.length);
  const seqs = prompts.map((p, b) => [...new Array<number>(pads[b]!).fill(s.pad), ...p]);
  const root = new Rng(opts.seed);
  const rngs = prompts.map((_, b) => root.fork(b));
  const out: Completion[] = prompts.map((p) => ({
    promptTokens: [...p],
    tokens: [],
    logprobs: [],
    values: [],
    finishReason: 'length',
    ...(opts.topLogprobs > 0 ? { top: [] } : {}),
  }));
  const done = new Array<boolean>(B).fill(false);
  const V = s.model.vocabSize;

  let res = await runFull(s, seqs, pads);
  for (let step = 0; step < opts.maxNewTokens; step++) {
    const logprobs = res.logprobs!.data as Float32Array;
    // Models without a value head (Hugging Face checkpoints) have no `value` output: 0.
    const values = res.value?.data as Float32Array | undefined;
    const next: number[] = [];
    for (let b = 0; b < B; b++) {
      if (done[b]) {
        next.push(s.pad);
        continue;
      }
      const row = logprobs.subarray(b * V, (b + 1) * V);
      const id = pick(row, opts, rngs[b]!);
      const c = out[b]!;
      c.tokens.push(id);
      c.logprobs.push(temperedLogprob(row, id, opts.temperature));
      c.values.push(values?.[b] ?? 0);
      if (c.top) c.top.push(topLogprobs(row, opts.topLogprobs, opts.temperature));
      next.push(id);
      const stopHere = onToken?.(b, id) === true;
      if (opts.eos !== undefined && id === opts.eos) finish(b, 'eos');
      else if (stopHere || opts.stop.some((st) => st.length > 0 && endsWith(c.tokens, st))) finish(b, 'stop');
    }
    seqs.forEach((q, b) => q.push(next[b]!));
    if (done.every(Boolean) || step === opts.maxNewTokens - 1) break;
    if (opts.kvCache) {
      res = await runDecode(s, seqs, pads, next, presentOf(res, s.model.nLayers));
    } else {
      res = await runFull(s, seqs, pads);
    }
  }
  return out;

  function finish(b: number, why: Completion['finishReason']) {
    done[b] = true;
    out[b]!.finishReason = why;
  }
}

/** The n likeliest tokens of a row with their logprobs under the sampling temperature (T = 1 at T = 0, as `logprobs`). */
function topLogprobs(row: Float32Array, n: number, temperature: number): { id: number; logprob: number }[] {
  const T = temperature === 0 ? 1 : temperature;
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) max = Math.max(max, row[i]! / T);
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i]! / T - max);
  const lse = max + Math.log(sum);
  return topKIndices(row, Math.min(n, row.length))
    .sort((a, b) => row[b]! - row[a]! || a - b)
    .map((id) => ({ id, logprob: row[id]! / T - lse }));
}

function endsWith(a: number[], suffix: number[]): boolean {
  if (suffix.length > a.length) return false;
  for (let i = 0; i < suffix.length; i++) if (a[a.length - suffix.length + i] !== suffix[i]) return false;
  return true;
}

function presentOf(res: ort.InferenceSession.OnnxValueMapType, layers: number): Record<string, ort.Tensor> {
  const p: Record<string, ort.Tensor> = {};
  for (let l = 0; l < layers; l++) {
    p[`past_k.${l}`] = res[`present_k.${l}`] as ort.Tensor;
    p[`past_v.${l}`] = res[`present_v.${l}`] as ort.Tensor;
  }
  return p;
}

/** Prefill / full recomputation over whole (left-padded) sequences. */
async function runFull(s: SamplerSessions, seqs: number[][], pads: number[]) {
  const B = seqs.length;
  const S = seqs[0]!.length;
  const positions: number[] = [];
  const mask = new Float32Array(B * S * S);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < S; i++) {
      positions.push(Math.max(0, i - pads[b]!));
      for (let j = 0; j < S; j++) if (j > i || j < pads[b]!) mask[(b * S + i) * S + j] = NEG_INF;
    }
  }
  return s.prefill.run({
    ...s.params,
    tokens: i64(seqs.flat(), [B, S]),
    positions: i64(positions, [B, S]),
    attn_mask: f32(mask, [B, 1, S, S]),
  });
}

/** One incremental step: feed the newest token with the cached K/V of everything before. */
async function runDecode(s: SamplerSessions, seqs: number[][], pads: number[], next: number[], past: Record<string, ort.Tensor>) {
  const B = seqs.length;
  const total = seqs[0]!.length;
  const mask = new Float32Array(B * total);
  for (let b = 0; b < B; b++) for (let j = 0; j < pads[b]!; j++) mask[b * total + j] = NEG_INF;
  return s.decode.run({
    ...s.params,
    ...past,
    tokens: i64(next, [B, 1]),
    positions: i64(
      pads.map((p) => total - 1 - p),
      [B, 1],
    ),
    attn_mask: f32(mask, [B, 1, 1, total]),
  });
}

/**
 * log softmax(l / T)[id] from a row of T = 1 log-probabilities l (log-softmax is shift
 * invariant, so l / T stands in for logits / T), computed in float64.
 */
export function temperedLogprob(logprobs: Float32Array, id: number, temperature: number): number {
  if (temperature === 0 || temperature === 1) return logprobs[id]!;
  let max = -Infinity;
  for (let i = 0; i < logprobs.length; i++) max = Math.max(max, logprobs[i]! / temperature);
  let sum = 0;
  for (let i = 0; i < logprobs.length; i++) sum += Math.exp(logprobs[i]! / temperature - max);
  return logprobs[id]! / temperature - max - Math.log(sum);
}

export { pick };
