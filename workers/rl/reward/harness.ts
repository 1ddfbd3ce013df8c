import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskTests } from '@/server/tasks/formats';
import type { SandboxManager, AcquireSpec } from '@/workers/sandbox/manager';
import type { ExecResult } from '@/workers/sandbox/types';
import { matches, render, type Typed } from './compare';

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNNERS = { python: fs.readFileSync(path.join(here, 'runner.py'), 'utf8'), javascript: fs.readFileSync(path.join(here, 'runner.mjs'), 'utf8') };

/** Recorded with every reward: any change to the runners changes it. */
export const HARNESS_VERSION = `harness-1+${createHash('sha256').update(RUNNERS.python).update(RUNNERS.javascript).digest('hex').slice(0, 12)}`;

export type HarnessTask = { language: 'python' | 'javascript'; entryPoint: string; tests: TaskTests };

export type TestOutcome = { index: number; passed: boolean; ms: number; detail: string };

export type HarnessResult = {
  /** `ran`: the harness ran (whatever the candidate did); otherwise an infrastructure failure that must not be scored */
  status: 'ran' | 'env_mismatch' | 'sandbox_error';
  tests: TestOutcome[];
  testsPassed: number;
  testsTotal: number;
  loadError: string | null;
  style: { syntaxOk: boolean; issues: string[] };
  exec: ExecResult;
};

/**
 * Run a candidate against a task's tests in a sandbox. The expected values never enter
 * the sandbox: the runner reports what the candidate returned and this side compares.
 * A test without a result line (the candidate exited, crashed or hung) fails.
 */
export async function runTests(
  manager: SandboxManager,
  sandbox: AcquireSpec,
  task: HarnessTask,
  source: string,
  opts: { testTimeoutMs?: number; context?: { runId?: string; episodeId?: string } } = {},
): Promise<HarnessResult> {
  const testTimeoutMs = opts.testTimeoutMs ?? 2000;
  const marker = `\u001eCRUCIBLE-${randomBytes(8).toString('hex')} `;
  const io = task.tests.kind === 'io' ? task.tests.cases : null;
  const total = io ? io.length : 1;
  const job = {
    marker, source, entryPoint: task.entryPoint, testTimeoutMs, mode: io ? 'io' : 'check',
    inputs: io ? io.map((c) => c.input) : [], check: task.tests.kind === 'humaneval' ? task.tests.check : undefined,
  };
  const py = task.language === 'python';
  const runner = py ? '/tmp/.crucible-runner.py' : '/tmp/.crucible-runner.mjs';
  const cmd = py ? ['python3', '-I', '-S', runner] : ['node', '--max-old-space-size=256', runner];
  // Room for every test to use its full time, plus interpreter start.
  const timeoutMs = testTimeoutMs * (total + 1) + 3000;
  const exec = await manager.exec(
    { ...sandbox, files: [{ dest: runner, data: RUNNERS[task.language], mode: 0o444 }] },
    cmd,
    { timeoutMs, stdin: JSON.stringify(job) },
    opts.context,
  );
  const base = { testsTotal: total, exec, style: { syntaxOk: false, issues: [] as string[] } };
  if (exec.status === 'env_mismatch' || exec.status === 'sandbox_error') {
    return { ...base, status: exec.status, tests: [], testsPassed: 0, loadError: null };
  }
  const records: Record<string, unknown>[] = [];
  for (const line of exec.stdout.split('\n')) {
    if (!line.startsWith(marker)) continue;
    try {
      records.push(JSON.parse(line.slice(marker.length)) as Record<string, unknown>);
    } catch {
      /* a corrupted line counts as no result */
    }
  }
  const style = (records.find((r) => r.style)?.style as HarnessResult['style'] | undefined) ?? { syntaxOk: false, issues: ['harness produced no style report'] };
  const loadError = (records.find((r) => typeof r.load_error === 'string')?.load_error as string | undefined) ?? null;
  const tests: TestOutcome[] = [];
  for (let i = 0; i < total; i++) {
    const rec = records.find((r) => r.i === i);
    const ms = typeof rec?.ms === 'number' ? rec.ms : 0;
    if (!rec) {
      const why = loadError ? `not run: ${loadError}` : exec.status === 'timeout' ? 'timeout (the program did not finish)' : exec.status === 'memory_limit' ? 'memory limit exceeded' : 'no result (the program exited or crashed before returning)';
      tests.push({ index: i, passed: false, ms, detail: why });
    } else if (typeof rec.error === 'string') {
      tests.push({ index: i, passed: false, ms, detail: rec.error });
    } else if (io) {
      const ok = matches(rec.value as Typed, io[i]!.expected);
      tests.push({ index: i, passed: ok, ms, detail: ok ? 'passed' : `returned ${render(rec.value as Typed)}` });
    } else {
      tests.push({ index: i, passed: rec.passed === true, ms, detail: rec.passed === true ? 'passed' : 'check failed' });
    }
  }
  return { status: 'ran', tests, testsPassed: tests.filter((t) => t.passed).length, testsTotal: total, loadError, style, exec };
}
