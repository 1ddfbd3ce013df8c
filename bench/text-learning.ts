import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runStoriesExperiment } from '@/workers/rl/text-learning';

/** Where the bench finds a model named on its command line: the vendored stories260K. */
const MODEL_DIRS: Record<string, string> = { stories260K: path.resolve('test/models/stories260K-hf') };

/**
 * `npm run bench -- learning --model stories260K [--minutes 15] [--samples 8] [--lr 2e-3]
 *   [--seed 1] [--json]`
 *
 * RL improves a real pretrained model (issue 15, docs/rl.md "A pretrained model"): a GRPO run
 * on the "stories" text suite for the wall-clock budget, then held-out reward of its last
 * version against v0, the no-update control, with the paired sign-flip p-value over tasks.
 */
export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      minutes: { type: 'string', default: '15' },
      samples: { type: 'string', default: '8' },
      lr: { type: 'string' },
      kl: { type: 'string' },
      seed: { type: 'string', default: '1' },
      iterations: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const model = values.model!;
  if (model !== 'stories260K')
    throw new Error(`--model: the learning bench knows stories260K (its text suite is written for a children's-story model), got ${model}`);
  const minutes = Number(values.minutes);
  const samples = Number(values.samples);
  if (!(minutes > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
  if (!Number.isInteger(samples) || samples < 1) throw new Error(`--samples must be a positive integer, got ${values.samples}`);
  const learningRate = values.lr === undefined ? undefined : Number(values.lr);
  if (learningRate !== undefined && !(learningRate > 0)) throw new Error(`--lr must be above 0, got ${values.lr}`);
  const log = (s: string) => !values.json && console.log(s);
  log(
    `learning bench on ${model}: ${minutes} min of GRPO on the stories suite, then held-out reward against v0 (${samples} samples per task); ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const r = await runStoriesExperiment({
    modelDir: MODEL_DIRS[model]!,
    minutes,
    samples,
    learningRate,
    klCoef: values.kl === undefined ? undefined : Number(values.kl),
    seed: Number(values.seed),
    iterations: values.iterations ? Number(values.iterations) : undefined,
    log,
  });
  if (values.json) {
    console.log(JSON.stringify(r));
    return 0;
  }
  const h = r.heldout;
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  log(
    `\n${r.iterations} iterations in ${r.wallS.toFixed(0)} s (lr ${r.config.learningRate}, KL coefficient ${r.config.klCoef}, group ${r.config.groupSize} × ${r.config.tasksPerIteration} tasks)`,
  );
  log(`train reward by iteration: ${r.rewardCurve.map((x) => x.toFixed(2)).join(' ')}`);
  log(
    `held-out (${h.tasks} tasks × ${h.samples} samples, same seeds): reward RL ${h.reward.main.toFixed(3)} vs control (v0) ${h.reward.control.toFixed(3)}, gain ${h.gain.toFixed(3)}`,
  );
  log(
    `  checks (mentions name, mentions thing, ends a sentence, ≥ 6 words): RL ${h.checks.main.map(pct).join(' ')}, control ${h.checks.control.map(pct).join(' ')}`,
  );
  for (const e of h.examples) log(`  ${JSON.stringify(e.prompt)}\n    RL:      ${JSON.stringify(e.main)}\n    control: ${JSON.stringify(e.control)}`);
  log(`  ${h.improved} tasks improved, ${h.worse} worse; one-sided sign-flip test over tasks p = ${h.p < 1e-4 ? h.p.toExponential(2) : h.p.toPrecision(3)}`);
  return 0;
}
