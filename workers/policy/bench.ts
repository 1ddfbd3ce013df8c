import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Graph } from './onnx/graph';
import * as o from './onnx/ops';
import { countParams, ModelConfig } from './model';
import { Policy } from './policy';
import { createSession, defaultThreads, f32, type Provider } from './runtime';

// `npm run bench -- learner [--gpu] [--sizes 1m,10m] [--steps N] [--no-torch] [--json]`
// Training-step tokens/s and MFU (against a MatMul peak measured in this run), sampling
// tokens/s with and without the KV cache, and PyTorch CPU on the same model and batch.

const SIZES: Record<string, { model: Omit<ModelConfig, 'lnEps' | 'initStd'>; batch: number; seqLen: number }> = {
  '1m': { model: { vocabSize: 259, dModel: 128, nLayers: 4, nHeads: 4, dMlp: 512, maxSeqLen: 320 }, batch: 8, seqLen: 128 },
  '10m': { model: { vocabSize: 259, dModel: 384, nLayers: 6, nHeads: 6, dMlp: 1536, maxSeqLen: 320 }, batch: 8, seqLen: 128 },
};

const MATMUL_N = 1024;

/** Model FLOPs of one training token: 6 x matmul params + causal-agnostic attention (we compute full T x T). */
function trainFlopsPerToken(c: ModelConfig, T: number): number {
  const d = c.dModel;
  const matmulParams = c.nLayers * (3 * d * d + d * d + 2 * d * c.dMlp) + c.vocabSize * d + d;
  return 6 * matmulParams + 12 * c.nLayers * T * d;
}

async function ortMatmulGflops(providers: Provider[], threads: number): Promise<{ gflops: number; provider: Provider }> {
  const g = new Graph('matmul');
  const a = g.input('a', 'float32', [MATMUL_N, MATMUL_N]);
  const b = g.input('b', 'float32', [MATMUL_N, MATMUL_N]);
  g.output(o.matmul(a, b), 'c');
  const { session, provider } = await createSession(g.toBytes(), { providers, threads });
  const x = f32(Float32Array.from({ length: MATMUL_N * MATMUL_N }, (_, i) => Math.sin(i)), [MATMUL_N, MATMUL_N]);
  await session.run({ a: x, b: x });
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await session.run({ a: x, b: x });
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  await session.release();
  return { gflops: (2 * MATMUL_N ** 3) / best / 1e9, provider };
}

/** Debian's interpreter (its python3-torch lives there), not whatever python3 is first on PATH. */
const PYTHON = process.env.CRUCIBLE_BENCH_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/** Debian's python3-torch + libopenblas0-pthread, installed with apt-get when missing. */
function ensureTorch(): string | undefined {
  const probe = () => spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  const has = (pkg: string) => spawnSync('dpkg', ['-s', pkg], { encoding: 'utf8' }).status === 0;
  if (probe().status === 0 && has('libopenblas0-pthread')) return undefined;
  console.error('bench: installing python3-torch and libopenblas0-pthread with apt-get (PyTorch peer)...');
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-torch', 'libopenblas0-pthread'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (e) {
    return `apt-get install failed: ${(e as Error).message}`;
  }
  return probe().status === 0 ? undefined : `${PYTHON} still cannot import torch after installing python3-torch`;
}

type TorchResult = { torch: string; threads: number; tokensPerSecond: number; matmulGflops: number | null; parameters: number };

function runTorch(cfg: object): TorchResult {
  const script = path.join(import.meta.dirname, 'bench_torch.py');
  const r = spawnSync(PYTHON, [script, JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`PyTorch reference failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as TorchResult;
}

async function trainTokensPerSecond(p: Policy, batch: number, seqLen: number, steps: number) {
  const seqs = Array.from({ length: batch }, (_, b) => {
    const tokens = Array.from({ length: seqLen + 1 }, (_, i) => (i * 31 + b * 7) % 256);
    return { tokens, lossMask: tokens.map((_, i) => (i > 0 ? 1 : 0)) };
  });
  for (let i = 0; i < 2; i++) await p.trainStep(seqs, { kind: 'sft' }); // build + warm the session
  const t = performance.now();
  for (let i = 0; i < steps; i++) await p.trainStep(seqs, { kind: 'sft' });
  const secs = (performance.now() - t) / 1000;
  return { tokensPerSecond: (batch * seqLen * steps) / secs, secondsPerStep: secs / steps };
}

async function sampleTokensPerSecond(p: Policy, kvCache: boolean, newTokens: number, batch: number) {
  const prompts = Array.from({ length: batch }, (_, i) => `bench prompt ${i}`);
  await p.sample(prompts, { maxNewTokens: 4, kvCache, seed: 1 }); // build + warm
  const t = performance.now();
  const out = await p.sample(prompts, { maxNewTokens: newTokens, kvCache, seed: 1, eos: -1 });
  const secs = (performance.now() - t) / 1000;
  const n = out.reduce((a, c) => a + c.tokens.length, 0);
  return n / secs;
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      gpu: { type: 'boolean' }, sizes: { type: 'string' }, steps: { type: 'string' }, 'no-torch': { type: 'boolean' },
      json: { type: 'boolean' }, threads: { type: 'string' }, 'new-tokens': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log('usage: npm run bench -- learner [--gpu] [--sizes 1m,10m] [--steps 5] [--new-tokens 256] [--threads N] [--no-torch] [--json]');
    return 0;
  }
  const threads = Number(values.threads ?? defaultThreads());
  const steps = Number(values.steps ?? 5);
  const newTokens = Number(values['new-tokens'] ?? 256);
  const providers: Provider[] = values.gpu ? ['cuda'] : ['cpu'];
  const sizes = (values.sizes ?? '1m,10m').split(',');
  for (const s of sizes) if (!SIZES[s]) throw new Error(`unknown size ${s} (have ${Object.keys(SIZES).join(', ')})`);

  let peak: { gflops: number; provider: Provider };
  try {
    peak = await ortMatmulGflops(providers, threads);
  } catch (e) {
    if (values.gpu) {
      console.error(`bench: --gpu needs onnxruntime's CUDA execution provider, which did not load here: ${(e as Error).message.split('\n')[0]}`);
      console.error('bench: install onnxruntime-node with its CUDA binaries on a machine with an NVIDIA GPU, or run without --gpu.');
      return 1;
    }
    throw e;
  }
  const torchProblem = values['no-torch'] || values.gpu ? 'skipped' : ensureTorch();
  console.error(`bench: provider ${peak.provider}, ${threads} threads, ORT MatMul ${MATMUL_N}^3 peak ${peak.gflops.toFixed(1)} GFLOP/s`);

  const rows = [];
  for (const size of sizes) {
    const s = SIZES[size]!;
    const model = ModelConfig.parse(s.model);
    const p = Policy.create({ model, seed: 0, optim: { lr: 1e-4 } }, { providers, threads });
    const train = await trainTokensPerSecond(p, s.batch, s.seqLen, steps);
    const flops = trainFlopsPerToken(model, s.seqLen);
    const cached = await sampleTokensPerSecond(p, true, newTokens, 1);
    const uncached = await sampleTokensPerSecond(p, false, newTokens, 1);
    await p.release();
    let torch: TorchResult | undefined;
    let torchError = torchProblem;
    if (!torchProblem) {
      try {
        torch = runTorch({ model, batch: s.batch, seqLen: s.seqLen, steps, warmup: 2, threads, matmulN: MATMUL_N });
      } catch (e) {
        torchError = (e as Error).message;
      }
    }
    const peakGflops = Math.max(peak.gflops, torch?.matmulGflops ?? 0);
    const row = {
      size,
      parameters: countParams(model),
      batch: s.batch,
      seqLen: s.seqLen,
      provider: peak.provider,
      trainTokensPerSecond: train.tokensPerSecond,
      trainSecondsPerStep: train.secondsPerStep,
      mfu: (train.tokensPerSecond * flops) / (peakGflops * 1e9),
      peakGflops,
      sampleTokensPerSecondKv: cached,
      sampleTokensPerSecondNoKv: uncached,
      kvSpeedup: cached / uncached,
      torchTrainTokensPerSecond: torch?.tokensPerSecond ?? null,
      torchMfu: torch ? (torch.tokensPerSecond * flops) / (peakGflops * 1e9) : null,
      torchMatmulGflops: torch?.matmulGflops ?? null,
      torchParameters: torch?.parameters ?? null,
      ratioVsTorch: torch ? train.tokensPerSecond / torch.tokensPerSecond : null,
      torch: torch?.torch ?? torchError ?? null,
    };
    rows.push(row);
    if (!values.json) {
      console.log(
        [
          `${size} (${row.parameters.toLocaleString()} params, batch ${s.batch}x${s.seqLen}, ${row.provider}):`,
          `  train   ours ${row.trainTokensPerSecond.toFixed(0)} tok/s (MFU ${(row.mfu * 100).toFixed(1)}%)` +
            (torch ? ` | PyTorch ${torch.tokensPerSecond.toFixed(0)} tok/s (MFU ${(row.torchMfu! * 100).toFixed(1)}%) | ratio ${row.ratioVsTorch!.toFixed(2)}x` : ` | PyTorch: ${torchError}`),
          `  sample  KV cache ${cached.toFixed(1)} tok/s | recompute ${uncached.toFixed(1)} tok/s | ${row.kvSpeedup.toFixed(1)}x at ${newTokens} new tokens`,
        ].join('\n'),
      );
    }
  }
  if (values.json) console.log(JSON.stringify({ threads, matmulPeak: peak, rows }, null, 2));
  else console.log(`MatMul peak: ORT ${peak.gflops.toFixed(1)} GFLOP/s${rows[0]?.torchMatmulGflops ? `, PyTorch ${rows[0].torchMatmulGflops.toFixed(1)} GFLOP/s` : ''} (MFU uses the higher)`);
  return 0;
}
