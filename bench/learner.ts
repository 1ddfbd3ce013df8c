import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Graph } from '@/lib/policy/onnx/graph';
import * as o from '@/lib/policy/onnx/ops';
import { countParams, ModelConfig } from '@/lib/policy/model';
import { Policy } from '@/lib/policy/policy';
import { createSession, cudaProviderLibrary, defaultThreads, f32, type Provider } from '@/lib/policy/onnx-session';
import { childEnv, settings } from '@/core/settings';

// `npm run bench -- learner [--gpu] [--sizes 1m,10m] [--steps N] [--rounds N] [--reps N] [--no-torch] [--json]`
// Training-step tokens/s and MFU (against the MatMul peak measured in this run, and against
// the CPU's nominal FMA peak), sampling tokens/s with and without the KV cache, and PyTorch
// on the CPU training the same model and batch in the same run. Every figure is a median.

const SIZES: Record<string, { model: Omit<ModelConfig, 'lnEps' | 'initStd'>; batch: number; seqLen: number }> = {
  '1m': { model: { vocabSize: 259, dModel: 128, nLayers: 4, nHeads: 4, dMlp: 512, maxSeqLen: 320 }, batch: 8, seqLen: 128 },
  '10m': { model: { vocabSize: 259, dModel: 384, nLayers: 6, nHeads: 6, dMlp: 1536, maxSeqLen: 320 }, batch: 8, seqLen: 128 },
};

const MATMUL_N = 1024;
const TARGETS = { ratioVsTorch: 1.0, mfu10m: 0.35, kvSpeedup: 5 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Model FLOPs of one training token (forward + backward = 3 x forward): 2 per MatMul weight
 * (blocks + tied head) plus attention scores and context, full T x T as the graph computes it.
 */
export function trainFlopsPerToken(c: ModelConfig, T: number): number {
  const d = c.dModel;
  const matmulParams = c.nLayers * (3 * d * d + d * d + 2 * d * c.dMlp) + c.vocabSize * d + d;
  return 3 * (2 * matmulParams + 4 * c.nLayers * T * d);
}

/**
 * The CPU's nominal float32 peak: cores x clock x FLOPs per cycle, where FLOPs per cycle
 * assumes two FMA pipes per core (true of Zen 2-4 and Intel server cores): 2 x 8 lanes x 2 =
 * 32 with AVX2+FMA, 64 with AVX-512. The clock is the one /proc/cpuinfo reports (under a
 * hypervisor that is the nominal/TSC clock; boost can exceed it).
 */
export function nominalCpuPeak(): { gflops: number; cores: number; ghz: number; flopsPerCycle: number; isa: string; model: string } {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    /* not Linux: fall back to os.cpus() */
  }
  const flags = new Set((/^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? '').split(/\s+/));
  const mhz = Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(info)?.[1] ?? os.cpus()[0]?.speed ?? 0);
  const isa = flags.has('avx512f') ? 'AVX-512' : flags.has('avx2') && flags.has('fma') ? 'AVX2+FMA' : flags.has('avx') ? 'AVX' : 'SSE';
  const flopsPerCycle = { 'AVX-512': 64, 'AVX2+FMA': 32, AVX: 16, SSE: 8 }[isa]!;
  const cores = os.availableParallelism();
  const ghz = mhz / 1000;
  return {
    gflops: cores * ghz * flopsPerCycle,
    cores,
    ghz,
    flopsPerCycle,
    isa,
    model: /^model name\s*:\s*(.*)$/m.exec(info)?.[1] ?? os.cpus()[0]?.model ?? 'unknown',
  };
}

async function ortMatmulGflops(providers: Provider[], threads: number, reps: number): Promise<{ gflops: number; provider: Provider }> {
  const g = new Graph('matmul');
  const a = g.input('a', 'float32', [MATMUL_N, MATMUL_N]);
  const b = g.input('b', 'float32', [MATMUL_N, MATMUL_N]);
  g.output(o.matmul(a, b), 'c');
  const { session, provider } = await createSession(g.toBytes(), { providers, threads });
  const x = f32(
    Float32Array.from({ length: MATMUL_N * MATMUL_N }, (_, i) => Math.sin(i)),
    [MATMUL_N, MATMUL_N],
  );
  await session.run({ a: x, b: x });
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await session.run({ a: x, b: x });
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  await session.release();
  return { gflops: (2 * MATMUL_N ** 3) / best / 1e9, provider };
}

const canImportTorch = (python: string) => spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

/**
 * The first interpreter that can import torch. Debian's python3-torch lives under
 * /usr/bin/python3, which is often not the python3 first on PATH (e.g. a pyenv shim).
 */
function findTorchPython(): string | undefined {
  const candidates = [settings().CRUCIBLE_BENCH_PYTHON, '/usr/bin/python3', 'python3'].filter((p): p is string => !!p);
  return candidates.find((p) => (p.includes('/') ? existsSync(p) : true) && canImportTorch(p));
}

/** An interpreter with torch, installing Debian's python3-torch + libopenblas0-pthread when missing. */
function ensureTorch(): { python: string } | { skipped: string } {
  const has = (pkg: string) => spawnSync('dpkg', ['-s', pkg], { encoding: 'utf8' }).status === 0;
  let python = findTorchPython();
  if (python && has('libopenblas0-pthread')) return { python };
  if (process.getuid?.() !== 0) {
    return python
      ? { python }
      : { skipped: 'no python with torch; as root run `apt-get install -y python3-torch libopenblas0-pthread`, or set CRUCIBLE_BENCH_PYTHON' };
  }
  console.error('bench: installing python3-torch and libopenblas0-pthread with apt-get (PyTorch peer)...');
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-torch', 'libopenblas0-pthread'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: childEnv({ DEBIAN_FRONTEND: 'noninteractive' }),
    });
  } catch (e) {
    if (python) return { python };
    return { skipped: `apt-get install python3-torch failed (${(e as Error).message.split('\n')[0]})` };
  }
  python = findTorchPython();
  return python ? { python } : { skipped: 'python3-torch installed but no interpreter (CRUCIBLE_BENCH_PYTHON, /usr/bin/python3, python3) imports torch' };
}

type TorchResult = {
  torch: string;
  threads: number;
  tokensPerSecond: number;
  secondsPerStep: number;
  stepSeconds: number[];
  matmulGflops: number | null;
  parameters: number;
};

function runTorch(python: string, cfg: object): TorchResult {
  const script = path.join(import.meta.dirname, 'learner_torch.py');
  const r = spawnSync(python, [script, JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`PyTorch reference failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as TorchResult;
}

function trainBatch(batch: number, seqLen: number) {
  return Array.from({ length: batch }, (_, b) => {
    const tokens = Array.from({ length: seqLen + 1 }, (_, i) => (i * 31 + b * 7) % 256);
    return { tokens, lossMask: tokens.map((_, i) => (i > 0 ? 1 : 0)) };
  });
}

/** Seconds of each of `steps` SFT steps (after two that build and warm the session). */
async function trainStepSeconds(p: Policy, seqs: ReturnType<typeof trainBatch>, steps: number, warm: boolean): Promise<number[]> {
  if (warm) for (let i = 0; i < 2; i++) await p.trainStep(seqs, { kind: 'sft' });
  const times: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = performance.now();
    await p.trainStep(seqs, { kind: 'sft' });
    times.push((performance.now() - t) / 1000);
  }
  return times;
}

async function sampleTokensPerSecond(p: Policy, kvCache: boolean, newTokens: number, batch: number, reps: number) {
  const prompts = Array.from({ length: batch }, (_, i) => `bench prompt ${i}`);
  await p.sample(prompts, { maxNewTokens: 4, kvCache, seed: 1 }); // build + warm
  const rates: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    const out = await p.sample(prompts, { maxNewTokens: newTokens, kvCache, seed: 1, eos: -1 });
    const secs = (performance.now() - t) / 1000;
    rates.push(out.reduce((a, c) => a + c.tokens.length, 0) / secs);
  }
  return median(rates);
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      gpu: { type: 'boolean' },
      sizes: { type: 'string' },
      steps: { type: 'string' },
      rounds: { type: 'string' },
      reps: { type: 'string' },
      'no-torch': { type: 'boolean' },
      json: { type: 'boolean' },
      threads: { type: 'string' },
      'new-tokens': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'usage: npm run bench -- learner [--gpu] [--sizes 1m,10m] [--steps 5] [--rounds 2] [--reps 3] [--new-tokens 256] [--threads N] [--no-torch] [--json]',
    );
    return 0;
  }
  const threads = Number(values.threads ?? defaultThreads());
  const steps = Number(values.steps ?? 5);
  const reps = Number(values.reps ?? 3);
  const rounds = Number(values.rounds ?? 2);
  const newTokens = Number(values['new-tokens'] ?? 256);
  const providers: Provider[] = values.gpu ? ['cuda'] : ['cpu'];
  const sizes = (values.sizes ?? '1m,10m').split(',');
  for (const s of sizes) if (!SIZES[s]) throw new Error(`unknown size ${s} (have ${Object.keys(SIZES).join(', ')})`);

  let peak: { gflops: number; provider: Provider };
  try {
    peak = await ortMatmulGflops(providers, threads, 10);
  } catch (e) {
    if (values.gpu) {
      const lib = cudaProviderLibrary();
      console.error(`bench: --gpu: the CUDA execution provider is unavailable on this machine: ${(e as Error).message.split('\n')[0]}`);
      if (!lib.present) console.error(`bench: --gpu: onnxruntime-node's CUDA provider library is not installed (${lib.path})`);
      console.error(
        'bench: --gpu needs an NVIDIA GPU with CUDA 12 and onnxruntime-node installed with `--onnxruntime-node-install=cuda12`; run without --gpu for the CPU benchmark.',
      );
      return 1;
    }
    throw e;
  }
  const torchSetup: { python: string } | { skipped: string } = values['no-torch']
    ? { skipped: '--no-torch' }
    : values.gpu
      ? { skipped: "Debian's python3-torch is CPU-only, so it is no peer for the CUDA run" }
      : ensureTorch();
  const nominal = nominalCpuPeak();
  const loadBefore = loadavg();
  console.error(`bench: provider ${peak.provider}, ${threads} threads, load average ${loadBefore}`);
  if (!values.gpu) {
    console.error(
      `bench: CPU ${nominal.model}, ${nominal.cores} cores x ${nominal.ghz.toFixed(3)} GHz x ${nominal.flopsPerCycle} FLOP/cycle (${nominal.isa}, 2 FMA pipes assumed) = nominal ${nominal.gflops.toFixed(1)} GFLOP/s`,
    );
  }
  if ('skipped' in torchSetup) console.error(`bench: reference skipped: ${torchSetup.skipped}`);

  const rows = [];
  let torchPeak = 0;
  for (const size of sizes) {
    const s = SIZES[size]!;
    const model = ModelConfig.parse(s.model);
    const p = Policy.create({ model, seed: 0, optim: { lr: 1e-4 } }, { providers, threads });
    const flops = trainFlopsPerToken(model, s.seqLen);
    // Rounds alternate ours and PyTorch so a change in the shared machine's load hits both.
    const seqs = trainBatch(s.batch, s.seqLen);
    const ours: number[] = [];
    const theirs: number[] = [];
    let torch: TorchResult | undefined;
    let torchError = 'skipped' in torchSetup ? torchSetup.skipped : undefined;
    // The MatMul peak is measured next to each size's steps too, so the MFU's numerator and
    // denominator see the same load on a shared machine.
    let rowPeak = 0;
    for (let round = 0; round < rounds; round++) {
      rowPeak = Math.max(rowPeak, (await ortMatmulGflops(providers, threads, 5)).gflops);
      ours.push(...(await trainStepSeconds(p, seqs, steps, round === 0)));
      if ('python' in torchSetup && !torchError) {
        try {
          torch = runTorch(torchSetup.python, { model, batch: s.batch, seqLen: s.seqLen, steps, warmup: 2, threads, matmulN: MATMUL_N });
          theirs.push(...torch.stepSeconds);
          torchPeak = Math.max(torchPeak, torch.matmulGflops ?? 0);
          rowPeak = Math.max(rowPeak, torch.matmulGflops ?? 0);
        } catch (e) {
          torchError = (e as Error).message;
        }
      }
    }
    const train = { tokensPerSecond: (s.batch * s.seqLen) / median(ours), secondsPerStep: median(ours) };
    const torchTps = theirs.length ? (s.batch * s.seqLen) / median(theirs) : undefined;
    const cached = await sampleTokensPerSecond(p, true, newTokens, 1, reps);
    const uncached = await sampleTokensPerSecond(p, false, newTokens, 1, reps);
    await p.release();
    rows.push({
      size,
      parameters: countParams(model),
      batch: s.batch,
      seqLen: s.seqLen,
      provider: peak.provider,
      peakGflops: rowPeak,
      trainFlopsPerToken: flops,
      trainTokensPerSecond: train.tokensPerSecond,
      trainSecondsPerStep: train.secondsPerStep,
      sampleTokensPerSecondKv: cached,
      sampleTokensPerSecondNoKv: uncached,
      kvSpeedup: cached / uncached,
      trainSteps: ours.length,
      torchTrainTokensPerSecond: torchTps ?? null,
      torchSteps: theirs.length,
      torchParameters: torch?.parameters ?? null,
      ratioVsTorch: torchTps ? train.tokensPerSecond / torchTps : null,
      torch: torch && torchTps ? `PyTorch ${torch.torch} (${torch.threads} threads)` : `reference skipped: ${torchError}`,
    });
  }
  // MFU against the best MatMul either runtime reached next to that size's steps.
  const measuredPeak = Math.max(peak.gflops, torchPeak, ...rows.map((r) => r.peakGflops));
  const out = rows.map((r) => ({
    ...r,
    mfu: (r.trainTokensPerSecond * r.trainFlopsPerToken) / (r.peakGflops * 1e9),
    mfuNominal: values.gpu ? null : (r.trainTokensPerSecond * r.trainFlopsPerToken) / (nominal.gflops * 1e9),
    torchMfu: r.torchTrainTokensPerSecond ? (r.torchTrainTokensPerSecond * r.trainFlopsPerToken) / (r.peakGflops * 1e9) : null,
  }));
  const ten = out.find((r) => r.size === '10m');
  const targets = {
    ratioVsTorch10m: ten?.ratioVsTorch == null ? null : ten.ratioVsTorch >= TARGETS.ratioVsTorch,
    mfu10m: ten ? ten.mfu >= TARGETS.mfu10m : null,
    kvSpeedup: out.every((r) => r.kvSpeedup >= TARGETS.kvSpeedup),
  };
  const summary = {
    threads,
    loadAverage: { before: loadBefore, after: loadavg() },
    matmulPeak: { n: MATMUL_N, ortAtStart: peak.gflops, torch: torchPeak || null, best: measuredPeak, provider: peak.provider },
    nominalPeak: values.gpu ? null : nominal,
    rows: out,
    targets,
  };
  if (values.json) {
    console.log(JSON.stringify(summary, null, 2));
    return 0;
  }
  for (const r of out) {
    console.log(
      [
        `${r.size} (${r.parameters.toLocaleString()} params, batch ${r.batch}x${r.seqLen}, ${r.provider}):`,
        `  train   ours ${r.trainTokensPerSecond.toFixed(0)} tok/s (MFU ${(r.mfu * 100).toFixed(1)}% of the ${r.peakGflops.toFixed(0)} GFLOP/s MatMul peak measured alongside` +
          (r.mfuNominal != null ? `, ${(r.mfuNominal * 100).toFixed(1)}% of nominal` : '') +
          ')' +
          (r.torchTrainTokensPerSecond != null
            ? ` | PyTorch ${r.torchTrainTokensPerSecond.toFixed(0)} tok/s (MFU ${(r.torchMfu! * 100).toFixed(1)}%) | ratio ${r.ratioVsTorch!.toFixed(2)}x`
            : ` | ${r.torch}`),
        `  sample  KV cache ${r.sampleTokensPerSecondKv.toFixed(1)} tok/s | recompute ${r.sampleTokensPerSecondNoKv.toFixed(1)} tok/s | ${r.kvSpeedup.toFixed(1)}x at ${newTokens} new tokens`,
      ].join('\n'),
    );
  }
  console.log(
    `MatMul ${MATMUL_N}^3 peak: ORT ${peak.gflops.toFixed(1)} GFLOP/s at start` +
      (torchPeak ? `, PyTorch ${torchPeak.toFixed(1)} GFLOP/s` : '') +
      ` (best of the run ${measuredPeak.toFixed(1)}; each size's MFU uses the peak measured next to its steps)` +
      (values.gpu ? '' : `; nominal ${nominal.gflops.toFixed(1)} GFLOP/s`),
  );
  const mark = (v: boolean | null) => (v == null ? 'n/a' : v ? 'met' : 'NOT met');
  console.log(
    `targets: 10m ratio vs PyTorch >= ${TARGETS.ratioVsTorch}x ${mark(targets.ratioVsTorch10m)}; 10m MFU >= ${TARGETS.mfu10m * 100}% ${mark(targets.mfu10m)}; KV >= ${TARGETS.kvSpeedup}x ${mark(targets.kvSpeedup)}`,
  );
  console.log(`load average before ${summary.loadAverage.before}, after ${summary.loadAverage.after} (${os.availableParallelism()} cores, shared)`);
  return 0;
}
