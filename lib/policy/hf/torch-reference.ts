import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packBatch, paddedLength, TrainSequence } from '../batch';
import { Rng } from '@/core/random';
import type { HfTrainer } from './hf-trainer';

// Runs reference_torch.py and reference_train_torch.py (the independent PyTorch
// implementations the tests compare with).

export type ReferenceRequest = {
  make?: { dir: string; config: Record<string, unknown>; dtype: 'F32' | 'F16' | 'BF16'; shards?: number; seed: number }[];
  runs?: { dir: string; logits?: number[][]; greedy?: { prompts: number[][]; new: number; eos?: number[] } }[];
};
export type ReferenceResult = { runs: { logits: number[][]; greedy?: { tokens: number[]; logprobs: number[] }[] }[] };

/**
 * The first interpreter that imports torch: `preferred` (benchmarks pass CRUCIBLE_BENCH_PYTHON),
 * then Debian's /usr/bin/python3 (python3-torch; often not the python3 first on PATH), then python3.
 */
export function torchPython(preferred?: string): string {
  const candidates = [preferred, '/usr/bin/python3', 'python3'].filter((p): p is string => !!p);
  const found = candidates.find((p) => (p.includes('/') ? existsSync(p) : true) && spawnSync(p, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0);
  if (!found) throw new Error('no python that imports torch: run `npm run setup` as root (installs python3-torch) or set CRUCIBLE_BENCH_PYTHON');
  return found;
}

/** `python`: the interpreter to run it with (default: the first that imports torch, `torchPython()`). */
export function runReference(req: ReferenceRequest, python?: string): Promise<ReferenceResult> {
  return runScript('reference_torch.py', req, python) as Promise<ReferenceResult>;
}

/** One case for reference_train_torch.py (the autograd reference of the training graphs). */
export type TrainReferenceCase = {
  dir: string;
  lora?: { rank: number; alpha: number; targets: string[]; tensors: Record<string, number[]> };
  /** Packed [B][T] feeds, as batch.ts's packBatch makes them. */
  batch: Record<'tokens' | 'targets' | 'weights' | 'mask' | 'advantages' | 'old_logprobs' | 'ref_logprobs', number[][]>;
  loss: Record<string, unknown>;
  optim: Record<string, number>;
  /** Also clip and take one torch.optim.AdamW step. */
  step?: boolean;
  /** Round every matrix product's operands and result through this half type (mixed precision). */
  half?: 'fp16' | 'bf16';
  /** Multiply the loss by this before backward and divide the gradients by it after. */
  loss_scale?: number;
};
export type TrainReferenceResult = {
  logprobs: number[];
  loss: number;
  grads: Record<string, number[]>;
  grad_norm?: number;
  lr?: number;
  updated?: Record<string, number[]>;
};

/** The packed [B][T] feeds the reference reads (the same packing the trainer uses). */
export function packed(seqs: TrainSequence[]): TrainReferenceCase['batch'] {
  const T = paddedLength(Math.max(...seqs.map((s) => s.tokens.length)));
  const counts = seqs.map((s) => s.lossMask.slice(1).reduce((a, b) => a + b, 0));
  const feeds = packBatch(
    seqs.map((s) => TrainSequence.parse(s)),
    { rows: seqs.length, seqLen: T, pad: 0, aggregation: 'token', stepTokens: counts.reduce((a, b) => a + b, 0), stepSequences: counts.length },
  );
  const rows = (k: string) => {
    const d = Array.from(feeds[k]!.data as ArrayLike<number | bigint>, Number);
    return seqs.map((_, b) => d.slice(b * T, (b + 1) * T));
  };
  return {
    tokens: rows('tokens'),
    targets: rows('targets'),
    weights: rows('weights'),
    mask: rows('mask'),
    advantages: rows('advantages'),
    old_logprobs: rows('old_logprobs'),
    ref_logprobs: rows('ref_logprobs'),
  };
}

/** Three sequences of different lengths (right padding) for the training-graph checks; the first 3 tokens are the prompt. */
export const PARITY_TOKENS = [
  [1, 400, 17, 300, 5, 511, 42, 9, 260, 33, 100, 7, 88, 2],
  [1, 3, 4, 250, 251, 9],
  [1, 77, 300, 12, 9, 401, 55, 60, 61],
];
const PARITY_PROMPT = 3;
const PARITY_ADVANTAGES = [1.2, -0.8, 0.5];

/** A GRPO batch of PARITY_TOKENS whose old and reference logprobs are a little off-policy, so clipping, dual clip and KL all act. */
export async function offPolicyBatch(t: HfTrainer): Promise<TrainSequence[]> {
  const scored = await t.score(PARITY_TOKENS, { temperature: 0.9 });
  const rng = new Rng(5);
  return PARITY_TOKENS.map((tokens, i) => ({
    tokens,
    lossMask: tokens.map((_, j) => (j >= PARITY_PROMPT ? 1 : 0)),
    advantages: PARITY_ADVANTAGES[i]!,
    oldLogprobs: scored[i]!.logprobs.map((lp) => lp + (rng.next() - 0.5) * 0.8),
    refLogprobs: scored[i]!.logprobs.map((lp) => lp + (rng.next() - 0.5) * 0.4),
  }));
}

export function runTrainReference(cases: TrainReferenceCase[], python?: string): Promise<TrainReferenceResult[]> {
  return runScript('reference_train_torch.py', cases, python) as Promise<TrainReferenceResult[]>;
}

function runScript(name: string, req: unknown, python = torchPython()): Promise<unknown> {
  const script = path.join(import.meta.dirname, name);
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${name} exited ${code}: ${Buffer.concat(err).toString()}`));
      resolve(JSON.parse(Buffer.concat(out).toString()));
    });
    child.stdin.end(JSON.stringify(req));
  });
}

/** Largest |a - b| over two equally long arrays. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** Row-wise log-softmax of a [rows × V] array, in float64. */
export function logSoftmaxRows(x: ArrayLike<number>, V: number): Float64Array {
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length / V; r++) {
    let max = -Infinity;
    for (let i = 0; i < V; i++) max = Math.max(max, x[r * V + i]!);
    let s = 0;
    for (let i = 0; i < V; i++) s += Math.exp(x[r * V + i]! - max);
    const lse = max + Math.log(s);
    for (let i = 0; i < V; i++) out[r * V + i] = x[r * V + i]! - lse;
  }
  return out;
}
