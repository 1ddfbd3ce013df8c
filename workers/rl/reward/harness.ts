import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskTests } from '@/core/tasks';
import type { SandboxManager, AcquireSpec } from '@/lib/sandbox/pool/manager';
import type { ExecResult } from '@/lib/sandbox/types';
import { cpuVerdict, wallCeilingMs } from '@/lib/sandbox/limits/cpu-verdict';
import { matches, render, type Typed } from './compare';
import { jsStyle, type StyleReport } from './js-style';

const here = path.dirname(fileURLToPath(import.meta.url));
const read = (f: string) => fs.readFileSync(path.join(here, f), 'utf8');
/** The trusted side (one process per scoring) and the two candidate-side runners it starts. */
const FILES = { trusted: read('trusted.py'), python: read('candidate.py'), javascript: read('candidate.mjs') };
const PATHS = { trusted: '/tmp/.crucible-trusted.py', python: '/tmp/.crucible-candidate.py', javascript: '/tmp/.crucible-candidate.mjs' };

/**
 * The trusted side writes at most this many bytes of records (trusted.py MAX_RECORDS); the
 * exec's stdout cap is raised above it, since the sandbox default (1 MiB) would cut off the
 * records of a correct program that returns large values (all later tests would then fail).
 */
const RECORD_BYTES = 32 << 20;

/** Recorded with every reward: any change to the harness programs changes it. */
export const HARNESS_VERSION = `harness-2+${createHash('sha256').update(FILES.trusted).update(FILES.python).update(FILES.javascript).digest('hex').slice(0, 12)}`;

/** `prompt` matters for HumanEval tasks: the trusted side runs it (helpers, imports) before check(). */
export type HarnessTask = { language: 'python' | 'javascript'; entryPoint: string; tests: TaskTests; prompt?: string };

export type TestOutcome = { index: number; passed: boolean; ms: number; detail: string };

export type HarnessResult = {
  /**
   * `ran`: the harness ran (whatever the candidate did); otherwise an infrastructure failure
   * that must not be scored. A busy host is one: a wall ceiling that expired while the
   * candidate waited for a CPU is `sandbox_error` with harnessError "the host was too busy: …".
   */
  status: 'ran' | 'env_mismatch' | 'sandbox_error';
  tests: TestOutcome[];
  testsPassed: number;
  testsTotal: number;
  loadError: string | null;
  style: StyleReport;
  /** what the candidate itself printed (stdout and stderr together, capped); never the harness's protocol */
  output: string;
  /** set when the harness could not score for a reason that is not the candidate's (status sandbox_error) */
  harnessError: string | null;
  exec: ExecResult;
};

type HarnessRecord = Record<string, unknown>;

/**
 * Runtimes whose in-sandbox CPU clock counts time the host withheld: gVisor's Sentry counts
 * a task's time in the running state, a microVM guest under TCG (or without steal-time
 * accounting) its vCPU's. A CPU-limit timeout there is checked against the sandbox's own
 * runqueue wait measured on the host (usage.cpuWaitMs).
 */
const GUEST_CLOCK = /^(gvisor|microvm)$|runsc|kata/;

/**
 * Run a candidate against a task's tests in a sandbox. Inside, a trusted process holds the
 * job and proxies every call into the candidate, which runs in a child process of its own
 * (workers/rl/reward/trusted.py). Expected values of io tests never enter the sandbox: the
 * trusted side reports what the candidate returned and this side compares. A test without
 * a result (the program exited, crashed, hung, or killed the trusted side) fails.
 */
export async function runTests(
  manager: SandboxManager,
  sandbox: AcquireSpec,
  task: HarnessTask,
  source: string,
  opts: { testTimeoutMs?: number; timeoutMs?: number; context?: { runId?: string; episodeId?: string } } = {},
): Promise<HarnessResult> {
  // the candidate's CPU time per test; wall clock only as the ceiling (trusted.py, cpu-verdict.ts)
  const testTimeoutMs = opts.testTimeoutMs ?? 2000;
  const ceilingMs = wallCeilingMs(testTimeoutMs);
  const marker = `\u001eCRUCIBLE-${randomBytes(16).toString('hex')} `;
  const io = task.tests.kind === 'io' ? task.tests.cases : null;
  const total = io ? io.length : 1;
  const job = {
    marker,
    source,
    language: task.language,
    entryPoint: task.entryPoint,
    testTimeoutMs,
    wallCeilingMs: ceilingMs,
    mode: io ? 'io' : 'check',
    inputs: io ? io.map((c) => c.input) : [],
    check: task.tests.kind === 'humaneval' ? task.tests.check : undefined,
    prompt: task.prompt ?? '',
    runners: { python: PATHS.python, javascript: PATHS.javascript },
  };
  // Room for every test to reach its wall ceiling (a child restarted after each timeout), plus interpreter starts.
  const timeoutMs = opts.timeoutMs ?? ceilingMs * (2 * total + 1) + 4000;
  const exec = await manager.exec(
    {
      ...sandbox,
      limits: { ...sandbox.limits, outputBytes: Math.max(sandbox.limits?.outputBytes ?? 0, RECORD_BYTES + (1 << 20)) },
      files: [
        { dest: PATHS.trusted, data: FILES.trusted, mode: 0o444 },
        { dest: PATHS.python, data: FILES.python, mode: 0o444 },
        { dest: PATHS.javascript, data: FILES.javascript, mode: 0o444 },
      ],
    },
    ['python3', '-I', '-S', PATHS.trusted],
    { timeoutMs, stdin: JSON.stringify(job) },
    opts.context,
  );
  const base = { testsTotal: total, exec, output: '', style: { syntaxOk: false, issues: [] as string[] } };
  if (exec.status === 'env_mismatch' || exec.status === 'sandbox_error') {
    return { ...base, status: exec.status, tests: [], testsPassed: 0, loadError: null, harnessError: exec.error ?? null };
  }
  const busy = (why: string): HarnessResult => ({
    ...base,
    status: 'sandbox_error',
    tests: [],
    testsPassed: 0,
    loadError: null,
    harnessError: `the host was too busy: ${why}`,
  });
  // The exec's own deadline is the sum of every ceiling: the trusted side did not get to
  // finish. A stopped or killed trusted side is the candidate's doing (it scores 0); a
  // starved one is not.
  const whole = { wallMs: exec.durationMs, cpuMs: exec.usage.cpuMs, cpuWaitMs: exec.usage.cpuWaitMs, cpuLimitMs: Infinity, ceilingMs: timeoutMs };
  if (exec.status === 'timeout' && cpuVerdict({ ...whole, timedOut: true }) === 'contended') {
    return busy(`the scoring exec ran out its ${timeoutMs} ms and its sandbox waited ${exec.usage.cpuWaitMs} ms for a CPU (used ${exec.usage.cpuMs} ms)`);
  }
  const records: HarnessRecord[] = [];
  for (const line of exec.stdout.split('\n')) {
    if (!line.startsWith(marker)) continue;
    try {
      const rec: unknown = JSON.parse(line.slice(marker.length));
      if (rec && typeof rec === 'object') records.push(rec as HarnessRecord);
    } catch {
      /* a corrupted line counts as no result */
    }
  }
  const find = (key: string) => records.find((r) => key in r)?.[key];
  const harnessError = typeof find('harness_error') === 'string' ? (find('harness_error') as string) : null;
  const hostBusy = typeof find('host_busy') === 'string' ? (find('host_busy') as string) : null;
  const loadError = typeof find('load_error') === 'string' ? (find('load_error') as string) : null;
  const output = typeof find('output') === 'string' ? (find('output') as string) : '';
  if (harnessError) {
    return { ...base, status: 'sandbox_error', tests: [], testsPassed: 0, loadError, output, harnessError };
  }
  if (hostBusy) return { ...busy(hostBusy.replace(/^the host was too busy: /, '')), output };
  const style: StyleReport =
    task.language === 'python'
      ? ((find('style') as StyleReport | undefined) ?? { syntaxOk: false, issues: ['harness produced no style report'] })
      : jsStyle(source, find('syntaxOk') === true);
  const tests: TestOutcome[] = [];
  for (let i = 0; i < total; i++) {
    const rec = records.find((r) => r.i === i);
    const ms = typeof rec?.ms === 'number' ? rec.ms : 0;
    if (!rec) {
      const why = loadError
        ? `not run: ${loadError}`
        : exec.status === 'timeout'
          ? 'timeout (the program did not finish)'
          : exec.status === 'memory_limit'
            ? 'memory limit exceeded'
            : 'no result (the program exited or crashed before returning)';
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
  // Where the sandbox's clock counts host preemption as the candidate's CPU (GUEST_CLOCK), a
  // timeout on a host that kept the sandbox waiting for a CPU more than it let it run is not
  // the candidate's either (reported unscored: retried, not a 0).
  const timedOut = tests.some((t) => /^timeout/.test(t.detail)) || /^timeout/.test(loadError ?? '');
  if (timedOut && GUEST_CLOCK.test(exec.runtime) && exec.usage.cpuWaitMs !== undefined && exec.usage.cpuWaitMs > exec.usage.cpuMs) {
    return {
      ...busy(
        `a test timed out on ${exec.runtime}, whose clock counts host preemption, while the sandbox waited ${exec.usage.cpuWaitMs} ms for a CPU and ran ${exec.usage.cpuMs} ms`,
      ),
      output,
    };
  }
  return { status: 'ran', tests, testsPassed: tests.filter((t) => t.passed).length, testsTotal: total, loadError, style, output, harnessError: null, exec };
}
