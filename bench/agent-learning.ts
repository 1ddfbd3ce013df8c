import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runAgentLearning, type AgentLearningResult, type ArmComparison } from '@/workers/rl/agent-learning';

/**
 * `npm run bench -- agent-learning [--train-tasks 8] [--heldout-tasks 2] [--sft-steps 300]
 *   [--sft-lr 5e-3] [--minutes 20] [--iterations N] [--samples 8] [--lr 2e-4] [--seed 1] [--json]`
 *
 * An agent that acts (issue 35 §5, docs/rl.md "An agent that acts"): stories260K as a
 * tool-calling chat model, SFT on exported gold trajectories of the built-in repository suite,
 * then agent RL (GRPO) on the same tasks; RL's last version against v0 (the SFT model, the
 * no-update control) on held-in and held-out tasks, the same seeds in both arms.
 */
export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'train-tasks': { type: 'string', default: '8' },
      'heldout-tasks': { type: 'string', default: '2' },
      'sft-steps': { type: 'string', default: '300' },
      'sft-lr': { type: 'string', default: '5e-3' },
      minutes: { type: 'string', default: '20' },
      iterations: { type: 'string' },
      samples: { type: 'string', default: '8' },
      lr: { type: 'string' },
      seed: { type: 'string', default: '1' },
      json: { type: 'boolean' },
    },
  });
  const int = (name: keyof typeof values, min: number) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be a whole number of at least ${min}, got ${String(values[name])}`);
    return v;
  };
  const positive = (name: keyof typeof values) => {
    const v = Number(values[name]);
    if (!(v > 0)) throw new Error(`--${name} must be a number above 0, got ${String(values[name])}`);
    return v;
  };
  const log = (s: string) => !values.json && console.log(s);
  log(`agent-learning bench: stories260K, SFT on gold trajectories, then agent RL; ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`);
  const r = await runAgentLearning({
    modelDir: path.resolve('test/models/stories260K-hf'),
    trainTasks: int('train-tasks', 1),
    heldoutTasks: int('heldout-tasks', 1),
    sftSteps: int('sft-steps', 1),
    sftLr: positive('sft-lr'),
    minutes: positive('minutes'),
    iterations: values.iterations === undefined ? undefined : int('iterations', 1),
    samples: int('samples', 1),
    learningRate: values.lr === undefined ? undefined : positive('lr'),
    seed: int('seed', 0),
    log,
  });
  if (values.json) console.log(JSON.stringify(r));
  else console.log(formatAgentLearning(r));
  return 0;
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const row = (name: string, c: ArmComparison) =>
  `| ${name} (${c.tasks.length} tasks × ${c.samples}) | ${pct(c.solved.main)} | ${pct(c.solved.control)} | ${c.mcnemar.b} / ${c.mcnemar.c} | ${c.mcnemar.p.toPrecision(2)} | ${c.signFlipP.toPrecision(2)} | ${c.validToolCallsPerTurn.main.toFixed(2)} | ${c.validToolCallsPerTurn.control.toFixed(2)} | ${c.reward.main.toFixed(3)} | ${c.reward.control.toFixed(3)} |`;

/** The result as the table docs/rl.md records. */
export function formatAgentLearning(r: AgentLearningResult): string {
  const curve = (a: number[]) => a.map((v) => v.toFixed(2)).join(' ');
  return [
    `gold trajectories: ${r.gold.resolved} of ${r.gold.episodes} resolved, ${Math.min(...r.gold.tokens)}–${Math.max(...r.gold.tokens)} tokens`,
    `SFT: ${r.sft.steps} steps, loss ${r.sft.lossFirst.toFixed(3)} → ${r.sft.lossLast.toFixed(3)} (${r.sft.seconds.toFixed(0)} s)`,
    `before SFT (the chat model, ${r.base.samples} samples a held-in task): ${r.base.validToolCallsPerTurn.toFixed(2)} valid tool calls per turn, ${pct(r.base.solved)} solved`,
    `RL: ${r.rl.iterations} iterations in ${r.rl.seconds.toFixed(0)} s`,
    `  solved_rate by iteration: ${curve(r.rl.solvedCurve)}`,
    `  valid_tool_calls_per_turn: ${curve(r.rl.validCallsCurve)}`,
    `  reward_mean: ${curve(r.rl.rewardCurve)}`,
    '',
    '| tasks | solved, RL | solved, control (SFT v0) | pairs RL-only / control-only | McNemar p | sign-flip p | valid calls/turn, RL | control | reward, RL | control |',
    '|---|---|---|---|---|---|---|---|---|---|',
    row('held-in', r.heldIn),
    row('held-out', r.heldOut),
    '',
    `held-in: ${r.trainTasks.join(', ')}`,
    `held-out: ${r.heldoutTasks.join(', ')}`,
  ].join('\n');
}
