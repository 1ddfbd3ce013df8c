import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { Rng } from '@/core/random';
import { settings } from '@/core/settings';
import { readHfConfig } from '@/lib/policy/hf/model-dir';
import { SampleBenchResult, type SampleBenchRequest } from '@/bench/llama-sample';
import { runReference, torchPython } from '@/lib/policy/hf/torch-reference';
import { countHfParams } from '@/lib/policy/hf/weights';

// `npm run bench -- llama [--model stories260K|20m|DIR] [--threads N] [--reps N] [--quick] [--json]`
// Hugging Face Llama models, ours (ONNX) against PyTorch on the same model, batch and cache, in
// one run: greedy sampling tokens/s with the KV cache at batch 1, 8 and 32 (sample-bench.ts vs
// llama_sample_torch.py), GRPO training tokens/s, full and LoRA r=8 (train-bench.ts vs
// llama_train_torch.py), and each side's peak RSS. Every side runs in its own process so its
// peak RSS is its own; both sides get the same thread count. The machine is shared, so tokens
// per CPU-second is reported next to wall-clock tokens/s, and ratios are given for both.

const BENCH_DIR = import.meta.dirname;
const REPO = path.resolve(BENCH_DIR, '..');
const TSX = path.join(REPO, 'node_modules/.bin/tsx');
/** The checked-in fixture (test/models.ts names it too; a library may not import test/). */
const STORIES260K_DIR = path.join(REPO, 'test/models/stories260K-hf');

/** ~21.6M parameters; the same shape docs/policy.md's train-bench figures use. */
const CONFIG_20M = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 8192,
  hidden_size: 512,
  intermediate_size: 1376,
  num_hidden_layers: 6,
  num_attention_heads: 8,
  num_key_value_heads: 4,
  max_position_embeddings: 512,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  hidden_act: 'silu',
  tie_word_embeddings: true,
  bos_token_id: 1,
  eos_token_id: 2,
};

const TARGET = 1.0;
const PROMPT_LEN = 16;
const TRAIN = { batch: 8, len: 128 };

export type Side = { tokensPerSecond: number; tokensPerCpuSecond: number; peakRssMiB: number };
export type Ratio = { wall: number; cpu: number };
export type SamplingRow = { batch: number; tokens: number; ours: Side; torch: Side | null; ratio: Ratio | null };
export type TrainingRow = { mode: 'full' | 'lora'; trainable: number; ours: Side; torch: Side | null; ratio: Ratio | null };
export type ModelResult = {
  model: string;
  dir: string;
  params: number;
  sampling: SamplingRow[];
  /** Whether both sides' first row at the smallest batch decoded the same greedy tokens (and how many agree from the start). */
  greedyAgreement: { sameTokens: number; of: number } | null;
  training: TrainingRow[];
};
export type LlamaBenchResult = {
  date: string;
  threads: number;
  settings: { promptLen: number; newTokens: number; reps: number; trainSteps: number; trainReps: number; trainBatch: string };
  loadavg: { before: number[]; after: number[] };
  torchSkipped: string | null;
  models: ModelResult[];
  targets: { name: string; ratio: Ratio | null; met: boolean | null }[];
};

export type LlamaBenchOptions = {
  models: string[];
  threads: number;
  batches: number[];
  newTokens: number;
  reps: number;
  trainSteps: number;
  trainReps: number;
  /** false skips training (the vitest smoke check). */
  train: boolean;
  /** Run the PyTorch side even without OpenBLAS (smoke checks: correctness, not the ratio). */
  torchWithoutOpenBlas?: boolean;
  log?: (line: string) => void;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(args[0] ?? cmd)} exited ${code}: ${Buffer.concat(err).toString().slice(-2000)}`));
      resolve(Buffer.concat(out).toString());
    });
  });
}

/** JSON on the last line of a child's stdout (onnxruntime or torch may print before it). */
const lastJson = (stdout: string, line = -1): unknown => JSON.parse(stdout.trim().split('\n').at(line)!);

/** Why the PyTorch side cannot run here, or null. Debian torch without OpenBLAS runs matmuls ~8× slower: no fair ratio. */
async function torchUnavailable(withoutOpenBlas = false): Promise<string | null> {
  try {
    torchPython(settings().CRUCIBLE_BENCH_PYTHON);
  } catch (e) {
    return (e as Error).message;
  }
  if (withoutOpenBlas) return null;
  try {
    await run('dpkg', ['-s', 'libopenblas0-pthread']);
  } catch {
    return 'libopenblas0-pthread is not installed (`npm run bench -- learner` installs it as root)';
  }
  return null;
}

/** A model name or directory, as a directory (20m: written once to a temp dir by reference_torch.py). */
async function resolveModel(name: string): Promise<{ name: string; dir: string }> {
  if (name.toLowerCase() === 'stories260k') return { name: 'stories260K', dir: STORIES260K_DIR };
  if (name !== '20m') return { name: path.basename(path.resolve(name)), dir: path.resolve(name) };
  const dir = path.join(os.tmpdir(), 'crucible-llama-bench-20m');
  const ok = await fs
    .readFile(path.join(dir, 'config.json'), 'utf8')
    .then((t) => JSON.stringify(JSON.parse(t)) === JSON.stringify(CONFIG_20M))
    .catch(() => false);
  if (!ok || !(await fs.stat(path.join(dir, 'model.safetensors')).catch(() => undefined))) {
    await fs.rm(dir, { recursive: true, force: true });
    await runReference({ make: [{ dir, config: CONFIG_20M, dtype: 'F32', seed: 20 }] }, torchPython(settings().CRUCIBLE_BENCH_PYTHON));
    // The loader needs a tokenizer; stories260K's 512 tokens are a subset of the 8192 ids.
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES260K_DIR, f), path.join(dir, f));
  }
  return { name: '20m', dir };
}

function side(tokens: number, seconds: number[], cpuSeconds: number[], peakRssMiB: number): Side {
  return { tokensPerSecond: tokens / median(seconds), tokensPerCpuSecond: tokens / median(cpuSeconds), peakRssMiB };
}

const ratioOf = (a: Side, b: Side | null): Ratio | null =>
  b ? { wall: a.tokensPerSecond / b.tokensPerSecond, cpu: a.tokensPerCpuSecond / b.tokensPerCpuSecond } : null;

async function benchSampling(dir: string, o: LlamaBenchOptions, torchOk: boolean) {
  const cfg = await readHfConfig(dir);
  const rng = new Rng(7);
  // BOS then random ids; below 512 so they are also tokens of stories260K's tokenizer.
  const V = Math.min(cfg.vocabSize, 512);
  const prompts = Array.from({ length: Math.max(...o.batches) }, () => [
    1,
    ...Array.from({ length: PROMPT_LEN - 1 }, () => 3 + Math.floor(rng.next() * (V - 3))),
  ]);
  const req: SampleBenchRequest = { dir, batches: o.batches, prompts, new: o.newTokens, reps: o.reps, threads: o.threads };
  const ours = SampleBenchResult.parse(lastJson(await run(TSX, [path.join(BENCH_DIR, 'llama-sample.ts'), JSON.stringify(req)])));
  const eos = cfg.eosTokenIds.length ? cfg.eosTokenIds : [2];
  const torch = torchOk
    ? SampleBenchResult.parse(
        lastJson(await run(torchPython(settings().CRUCIBLE_BENCH_PYTHON), [path.join(BENCH_DIR, 'llama_sample_torch.py'), JSON.stringify({ ...req, eos })])),
      )
    : null;
  const rows: SamplingRow[] = ours.runs.map((r, i) => {
    const t = torch?.runs[i];
    const a = side(r.tokens, r.seconds, r.cpuSeconds, ours.peakRssMiB);
    const b = t ? side(t.tokens, t.seconds, t.cpuSeconds, torch.peakRssMiB) : null;
    return { batch: r.batch, tokens: r.tokens, ours: a, torch: b, ratio: ratioOf(a, b) };
  });
  let agreement: ModelResult['greedyAgreement'] = null;
  if (torch) {
    const x = ours.runs[0]!.firstRow;
    const y = torch.runs[0]!.firstRow;
    let n = 0;
    while (n < x.length && n < y.length && x[n] === y[n]) n++;
    agreement = { sameTokens: n, of: Math.max(x.length, y.length) };
  }
  return { rows, agreement };
}

const TrainOurs = z.object({ tokensPerSecond: z.number(), tokensPerCpuSecond: z.number(), peakRssMiB: z.number(), trainable: z.number() });
const TrainTorch = z.object({ tokensPerSecond: z.number(), tokensPerCpuSecond: z.number() });

// Runs llama_train_torch.py unchanged and adds its peak RSS on a last line.
const TORCH_RSS_WRAPPER = [
  'import json, resource, runpy, sys',
  'sys.argv = sys.argv[1:]',
  "runpy.run_path(sys.argv[0], run_name='__main__')",
  "print(json.dumps({'peakRssMiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))",
].join('\n');

async function benchTraining(dir: string, o: LlamaBenchOptions, torchOk: boolean): Promise<TrainingRow[]> {
  const rows: TrainingRow[] = [];
  for (const mode of ['full', 'lora'] as const) {
    const ours: z.infer<typeof TrainOurs>[] = [];
    const torch: (z.infer<typeof TrainTorch> & { peakRssMiB: number })[] = [];
    // Alternate the sides each repetition so drifting load hits both.
    for (let r = 0; r < o.trainReps; r++) {
      const args = [
        '--model',
        dir,
        '--threads',
        String(o.threads),
        '--batch',
        String(TRAIN.batch),
        '--len',
        String(TRAIN.len),
        '--steps',
        String(o.trainSteps),
      ];
      ours.push(TrainOurs.parse(lastJson(await run(TSX, [path.join(BENCH_DIR, 'llama-train.ts'), ...args, '--mode', mode]))));
      o.log?.(`  train ${mode} rep ${r + 1}: ours ${Math.round(ours.at(-1)!.tokensPerCpuSecond)} tokens/CPU-s`);
      if (!torchOk) continue;
      const pa = [dir, TRAIN.batch, TRAIN.len, o.trainSteps, o.threads, ...(mode === 'lora' ? [8] : [])].map(String);
      const out = await run(torchPython(settings().CRUCIBLE_BENCH_PYTHON), ['-c', TORCH_RSS_WRAPPER, path.join(BENCH_DIR, 'llama_train_torch.py'), ...pa]);
      const rss = z.object({ peakRssMiB: z.number() }).parse(lastJson(out));
      torch.push({ ...TrainTorch.parse(lastJson(out, -2)), peakRssMiB: rss.peakRssMiB });
      o.log?.(`  train ${mode} rep ${r + 1}: torch ${Math.round(torch.at(-1)!.tokensPerCpuSecond)} tokens/CPU-s`);
    }
    const med = (xs: { tokensPerSecond: number; tokensPerCpuSecond: number; peakRssMiB: number }[]): Side => ({
      tokensPerSecond: median(xs.map((x) => x.tokensPerSecond)),
      tokensPerCpuSecond: median(xs.map((x) => x.tokensPerCpuSecond)),
      peakRssMiB: Math.max(...xs.map((x) => x.peakRssMiB)),
    });
    const a = med(ours);
    const b = torch.length ? med(torch) : null;
    rows.push({ mode, trainable: ours[0]!.trainable, ours: a, torch: b, ratio: ratioOf(a, b) });
  }
  return rows;
}

export async function runLlamaBench(o: LlamaBenchOptions): Promise<LlamaBenchResult> {
  const before = os.loadavg();
  const torchSkipped = await torchUnavailable(o.torchWithoutOpenBlas);
  if (torchSkipped) o.log?.(`PyTorch side skipped: ${torchSkipped}`);
  const models: ModelResult[] = [];
  for (const name of o.models) {
    const m = await resolveModel(name);
    const params = countHfParams(await readHfConfig(m.dir));
    o.log?.(`${m.name}: ${params.toLocaleString()} params; sampling…`);
    const s = await benchSampling(m.dir, o, !torchSkipped);
    if (o.train) o.log?.(`${m.name}: training…`);
    const training = o.train ? await benchTraining(m.dir, o, !torchSkipped) : [];
    models.push({ model: m.name, dir: m.dir, params, sampling: s.rows, greedyAgreement: s.agreement, training });
  }
  const targets: LlamaBenchResult['targets'] = [];
  for (const m of models) {
    const b32 = m.sampling.find((r) => r.batch === 32);
    if (b32) targets.push({ name: `${m.model} sampling batch 32`, ratio: b32.ratio, met: b32.ratio ? b32.ratio.cpu >= TARGET : null });
    for (const t of m.training) targets.push({ name: `${m.model} training ${t.mode}`, ratio: t.ratio, met: t.ratio ? t.ratio.cpu >= TARGET : null });
  }
  return {
    date: new Date().toISOString(),
    threads: o.threads,
    settings: {
      promptLen: PROMPT_LEN,
      newTokens: o.newTokens,
      reps: o.reps,
      trainSteps: o.trainSteps,
      trainReps: o.trainReps,
      trainBatch: `${TRAIN.batch}×${TRAIN.len}`,
    },
    loadavg: { before, after: os.loadavg() },
    torchSkipped,
    models,
    targets,
  };
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const rx = (r: Ratio | null) => (r ? `${r.wall.toFixed(2)}× / ${r.cpu.toFixed(2)}×` : '—');

/** Markdown tables (what docs/benchmarks.md records). */
export function formatLlamaBench(r: LlamaBenchResult): string {
  const L: string[] = [];
  L.push(
    `${r.date}, ${r.threads} thread(s) each side, load average ${r.loadavg.before.map((x) => x.toFixed(1)).join(' ')} → ${r.loadavg.after.map((x) => x.toFixed(1)).join(' ')}`,
  );
  L.push(
    `sampling: greedy, prompt ${r.settings.promptLen} tokens, ${r.settings.newTokens} new, median of ${r.settings.reps}; training: GRPO ${r.settings.trainBatch}, ${r.settings.trainSteps} timed steps per process, median of ${r.settings.trainReps} processes`,
  );
  if (r.torchSkipped) L.push(`PyTorch side skipped: ${r.torchSkipped}`);
  L.push('');
  L.push('| model | what | ours tok/s | PyTorch tok/s | ours tok/CPU-s | PyTorch tok/CPU-s | ratio wall / CPU | peak RSS ours / PyTorch |');
  L.push('|---|---|---|---|---|---|---|---|');
  for (const m of r.models) {
    const label = `${m.model} (${(m.params / 1e6).toFixed(2)}M)`;
    for (const s of m.sampling) {
      L.push(
        `| ${label} | sample batch ${s.batch} | ${n0(s.ours.tokensPerSecond)} | ${s.torch ? n0(s.torch.tokensPerSecond) : '—'} | ${n0(s.ours.tokensPerCpuSecond)} | ${s.torch ? n0(s.torch.tokensPerCpuSecond) : '—'} | ${rx(s.ratio)} | ${n0(s.ours.peakRssMiB)} / ${s.torch ? n0(s.torch.peakRssMiB) : '—'} MiB |`,
      );
    }
    for (const t of m.training) {
      L.push(
        `| ${label} | train ${t.mode}${t.mode === 'lora' ? ` (${n0(t.trainable)} trainable)` : ''} | ${n0(t.ours.tokensPerSecond)} | ${t.torch ? n0(t.torch.tokensPerSecond) : '—'} | ${n0(t.ours.tokensPerCpuSecond)} | ${t.torch ? n0(t.torch.tokensPerCpuSecond) : '—'} | ${rx(t.ratio)} | ${n0(t.ours.peakRssMiB)} / ${t.torch ? n0(t.torch.peakRssMiB) : '—'} MiB |`,
      );
    }
  }
  L.push('');
  for (const m of r.models) {
    if (m.greedyAgreement) L.push(`${m.model}: first row's greedy tokens agree for ${m.greedyAgreement.sameTokens} of ${m.greedyAgreement.of}`);
  }
  for (const t of r.targets)
    L.push(`target ≥ ${TARGET}× (CPU-s ratio) ${t.name}: ${t.met === null ? 'not measured' : t.met ? 'met' : 'missed'} (${rx(t.ratio)})`);
  return L.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      threads: { type: 'string', default: '1' },
      reps: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const quick = values.quick;
  const threads = z.coerce.number().int().positive().parse(values.threads);
  const opts: LlamaBenchOptions = {
    models: values.model ? [values.model] : ['stories260K', '20m'],
    threads,
    batches: [1, 8, 32],
    newTokens: quick ? 8 : 32,
    reps: z.coerce
      .number()
      .int()
      .positive()
      .parse(values.reps ?? (quick ? 1 : 3)),
    trainSteps: quick ? 1 : 3,
    trainReps: quick ? 1 : 3,
    train: true,
    log: values.json ? undefined : (l) => console.log(l),
  };
  const r = await runLlamaBench(opts);
  console.log(values.json ? JSON.stringify(r, null, 2) : `\n${formatLlamaBench(r)}`);
  return 0;
}
