import { spawnSync } from 'node:child_process';
import { z } from 'zod';
import { Rng } from '@/core/random';
import { settings } from '@/core/settings';
import path from 'node:path';
import { LORA_MODULES } from '@/lib/policy/hf/export-peft';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { torchPython } from '@/lib/policy/hf/torch-reference';
import { countHfParams } from '@/lib/policy/hf/weights';

// Training throughput and memory of HfTrainer on a Hugging Face directory:
//   npx tsx bench/llama-train.ts --model DIR [--threads N] [--batch B] [--len T] [--steps K]
// Each mode (full, LoRA r=8 on all seven projections) runs in its own process so its peak RSS
// is its own. Tokens/s counts every sequence token the step runs forward and backward through,
// after one warm-up step (session build excluded), per wall-clock and per CPU second (the
// latter is what counts on a shared machine). Peak RSS is also given above the process's
// RSS once the weights are loaded, as a multiple of the float32 weight bytes.

const Args = z.object({
  model: z.string({ message: '--model DIR is required (e.g. test/models/stories260K-hf)' }),
  threads: z.coerce.number().int().positive().default(1),
  batch: z.coerce.number().int().positive().default(8),
  len: z.coerce.number().int().min(8).default(128),
  steps: z.coerce.number().int().positive().default(5),
  mode: z.enum(['full', 'lora']).optional(),
});

function parseArgs(argv: string[]) {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i]!;
    if (!k.startsWith('--') || argv[i + 1] === undefined)
      throw new Error(`usage: train-bench.ts --model DIR [--threads N] [--batch B] [--len T] [--steps K] (got ${k})`);
    raw[k.slice(2)] = argv[i + 1]!;
  }
  return Args.parse(raw);
}

async function runMode(a: z.infer<typeof Args>, mode: 'full' | 'lora') {
  const rssStart = process.memoryUsage().rss;
  const t = await HfTrainer.load(
    a.model,
    { optim: { lr: 1e-4 }, lora: mode === 'lora' ? { rank: 8, alpha: 16, targetModules: [...LORA_MODULES] } : undefined },
    { providers: ['cpu'], threads: a.threads },
  );
  const rssLoaded = process.memoryUsage().rss;
  const weightBytes = countHfParams(t.config) * 4;
  const rng = new Rng(1);
  const V = t.config.vocabSize;
  const seqs = Array.from({ length: a.batch }, () => {
    const tokens = [1, ...Array.from({ length: a.len - 1 }, () => 3 + Math.floor(rng.next() * (V - 3)))];
    return { tokens, lossMask: tokens.map((_, j) => (j >= 16 ? 1 : 0)), advantages: rng.next() - 0.5 };
  });
  const scored = await t.score(seqs.map((s) => s.tokens));
  const batch = seqs.map((s, i) => ({ ...s, oldLogprobs: scored[i]!.logprobs }));
  await t.trainStep(batch, { kind: 'grpo' }); // builds the session
  let seconds = 0;
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < a.steps; k++) seconds += (await t.trainStep(batch, { kind: 'grpo' })).seconds;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await t.release();
  const peak = process.resourceUsage().maxRSS * 1024;
  const tokens = a.batch * a.len * a.steps;
  return {
    mode,
    params: countHfParams(t.config),
    trainable: [...t.trainable().values()].reduce((n, x) => n + x.size, 0),
    tokensPerSecond: Math.round(tokens / seconds),
    /** Load-independent on a shared machine (with 1 thread, what an idle core would give). */
    tokensPerCpuSecond: Math.round(tokens / cpuSeconds),
    stepSeconds: seconds / a.steps,
    weightBytes,
    rssBeforeLoadMiB: rssStart / 2 ** 20,
    peakRssMiB: peak / 2 ** 20,
    peakOverLoadedAsWeights: (peak - rssLoaded) / weightBytes,
    peakOverStartAsWeights: (peak - rssStart) / weightBytes,
  };
}

const a = parseArgs(process.argv.slice(2));
if (a.mode) {
  console.log(JSON.stringify(await runMode(a, a.mode)));
} else {
  console.log(`model ${a.model}, batch ${a.batch} × ${a.len} tokens, GRPO, ${a.threads} thread(s), ${a.steps} timed steps`);
  for (const mode of ['full', 'lora'] as const) {
    const args = [process.argv[1]!, ...process.argv.slice(2), '--mode', mode];
    const r = spawnSync(process.execPath, [...process.execArgv, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${mode} run failed: ${r.stderr}`);
    const x = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Awaited<ReturnType<typeof runMode>>;
    console.log(
      `${mode.padEnd(4)}  ${x.tokensPerSecond} tokens/s, ${x.tokensPerCpuSecond} per CPU-second (${x.stepSeconds.toFixed(3)} s/step), trainable ${x.trainable.toLocaleString()} of ${x.params.toLocaleString()} params; ` +
        `peak RSS ${x.peakRssMiB.toFixed(0)} MiB (${x.rssBeforeLoadMiB.toFixed(0)} MiB before loading); peak − loaded = ${x.peakOverLoadedAsWeights.toFixed(1)}× the ${(x.weightBytes / 2 ** 20).toFixed(1)} MiB of weights`,
    );
    // The same step in PyTorch (llama_train_torch.py), for the ratio. Debian's torch on the
    // reference libblas3 runs matmuls ~8× slower than on OpenBLAS: no ratio then.
    if (spawnSync('dpkg', ['-s', 'libopenblas0-pthread'], { encoding: 'utf8' }).status !== 0) {
      console.log('      PyTorch peer skipped: libopenblas0-pthread is not installed (`npm run bench -- learner` installs it as root)');
      continue;
    }
    const script = path.join(import.meta.dirname, 'llama_train_torch.py');
    const pa = [script, a.model, String(a.batch), String(a.len), String(a.steps), String(a.threads), ...(mode === 'lora' ? ['8'] : [])];
    const py = spawnSync(torchPython(settings().CRUCIBLE_BENCH_PYTHON), pa, { encoding: 'utf8' });
    if (py.status !== 0) throw new Error(`llama_train_torch.py failed: ${py.stderr}`);
    const tr = JSON.parse(py.stdout.trim()) as { tokensPerSecond: number; tokensPerCpuSecond: number };
    console.log(
      `      PyTorch ${Math.round(tr.tokensPerSecond)} tokens/s, ${Math.round(tr.tokensPerCpuSecond)} per CPU-second: ONNX/PyTorch ${(x.tokensPerSecond / tr.tokensPerSecond).toFixed(2)}× (wall), ${(x.tokensPerCpuSecond / tr.tokensPerCpuSecond).toFixed(2)}× (CPU)`,
    );
  }
}
