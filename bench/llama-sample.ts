import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';

// Our side of llama-bench.ts's sampling figures, run in its own process so its peak RSS is
// its own: HfPolicy.sample (prefill, then the KV-cache decode session) greedy on the given
// prompts at each batch size, one warm-up call per batch (session build, shape-specific
// allocations) then `reps` timed calls. llama_sample_torch.py is the PyTorch side.
//   npx tsx bench/llama-sample.ts '{"dir", "batches", "prompts", "new", "reps", "threads"}'

export const SampleBenchRequest = z.object({
  dir: z.string(),
  batches: z.array(z.number().int().positive()).min(1),
  prompts: z.array(z.array(z.number().int().nonnegative()).min(1)).min(1),
  new: z.number().int().positive(),
  reps: z.number().int().positive(),
  threads: z.number().int().positive(),
});
export type SampleBenchRequest = z.infer<typeof SampleBenchRequest>;

/** One batch size's timings; llama_sample_torch.py answers in the same shape. */
export const SampleBenchRun = z.object({
  batch: z.number(),
  seconds: z.array(z.number()),
  cpuSeconds: z.array(z.number()),
  /** Tokens generated per timed call (rows stop at EOS). */
  tokens: z.number(),
  /** The first row's greedy tokens, to check both sides decoded the same thing. */
  firstRow: z.array(z.number()),
});
export const SampleBenchResult = z.object({ runs: z.array(SampleBenchRun), peakRssMiB: z.number() });
export type SampleBenchResult = z.infer<typeof SampleBenchResult>;

export async function sampleBench(req: SampleBenchRequest): Promise<SampleBenchResult> {
  const maxBatch = Math.max(...req.batches);
  if (req.prompts.length < maxBatch) throw new Error(`need ${maxBatch} prompts for batch ${maxBatch}, got ${req.prompts.length}`);
  const policy = await HfPolicy.load(req.dir, { providers: ['cpu'], threads: req.threads, decodeThreads: req.threads });
  const runs: SampleBenchResult['runs'] = [];
  try {
    for (const B of req.batches) {
      const prompts = req.prompts.slice(0, B);
      const opts = { maxNewTokens: req.new, temperature: 0 };
      await policy.sample(prompts, opts);
      const seconds: number[] = [];
      const cpuSeconds: number[] = [];
      let tokens = 0;
      let firstRow: number[] = [];
      for (let r = 0; r < req.reps; r++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        const out = await policy.sample(prompts, opts);
        const c = process.cpuUsage(c0);
        seconds.push((performance.now() - t0) / 1000);
        cpuSeconds.push((c.user + c.system) / 1e6);
        tokens = out.reduce((n, o) => n + o.tokens.length, 0);
        firstRow = out[0]!.tokens;
      }
      runs.push({ batch: B, seconds, cpuSeconds, tokens, firstRow });
    }
  } finally {
    await policy.release();
  }
  return { runs, peakRssMiB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.argv[2];
  if (!raw) throw new Error('usage: sample-bench.ts \'{"dir", "batches", "prompts", "new", "reps", "threads"}\' (llama-bench.ts runs it)');
  console.log(JSON.stringify(await sampleBench(SampleBenchRequest.parse(JSON.parse(raw)))));
}
