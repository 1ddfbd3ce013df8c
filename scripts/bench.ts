// `npm run bench -- <suite> [args]`: each suite runs ours and a reference side by side
// in one process run and prints ratios. Suites live next to the code they measure.
const suites: Record<string, () => Promise<{ main: (argv: string[]) => Promise<number> }>> = {
  sandbox: () => import('@/workers/sandbox/bench'),
  learner: () => import('@/workers/policy/bench'),
  llama: () => import('@/workers/policy/hf/llama-bench'),
  scheduler: () => import('@/workers/scheduler/bench'),
  loop: () => import('@/workers/rl/bench'),
  learning: () => import('@/workers/rl/learning-bench'),
  artifacts: () => import('./artifacts-bench'),
  agent: () => import('@/workers/agent/episode/bench'),
  console: () => import('@/server/runs/console-bench'),
};

async function run(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || !(name in suites)) {
    console.error(`usage: npm run bench -- <${Object.keys(suites).join('|')}> [options]`);
    return 2;
  }
  const mod = await suites[name]!();
  return mod.main(rest);
}

process.exitCode = await run();
export {};
