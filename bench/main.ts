// `npm run bench -- <suite> [args]`: each suite runs ours and a reference side by side
// in one process run and prints ratios. Suites live here, apart from the code they measure.
import { settings } from '@/core/settings';

const suites: Record<string, () => Promise<{ main: (argv: string[]) => Promise<number> }>> = {
  sandbox: () => import('@/bench/sandbox'),
  learner: () => import('@/bench/learner'),
  llama: () => import('@/bench/llama'),
  scheduler: () => import('@/bench/scheduler'),
  loop: () => import('@/bench/loop'),
  learning: () => import('@/bench/learning'),
  artifacts: () => import('@/bench/artifacts'),
  agent: () => import('@/bench/agent'),
  'agent-learning': () => import('@/bench/agent-learning'),
  console: () => import('@/bench/console'),
  sampling: () => import('@/bench/sampling'),
};

async function run(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || !(name in suites)) {
    console.error(`usage: npm run bench -- <${Object.keys(suites).join('|')}> [options]`);
    return 2;
  }
  // onnxruntime's log level and threads for this process (CRUCIBLE_POLICY_ORT_LOG, CRUCIBLE_POLICY_THREADS)
  (await import('@/lib/policy/onnx-session')).configureOnnxRuntime(settings());
  const mod = await suites[name]!();
  return mod.main(rest);
}

process.exitCode = await run();
export {};
