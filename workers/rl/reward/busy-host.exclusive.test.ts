import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { HarnessTask } from './harness';
import { scoreSolution, type ScoreResult } from './reward';
import { saturate } from '@/test/cpu-hog';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { storeDirFor } from '@/lib/sandbox/env/env-store';

/*
 * Issue 32: on a busy host a correct program scored 0 because the per-test limit was wall
 * clock. The limit is now the candidate's CPU time (trusted.py; wall clock only as a ceiling
 * whose expiry on a contended host is unscored). This scores one fixed set of solutions on an
 * idle host and again with every core saturated, and wants the same outcome for each: no clock
 * in the assertion, only counted results.
 */

let manager: SandboxManager;
let dataDir: string;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-busy-'));
  fs.chmodSync(dataDir, 0o755); // sandboxed processes run as nobody and must reach the env store
  manager = new SandboxManager({ dataDir, storeDir: storeDirFor(dataDir), runtime: runtimeOptions(settings()) });
  ensureDefaultEnvironment(manager.storeDir);
});
afterAll(async () => {
  await manager.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// reward.test.ts's task
const cases = [
  { input: [[3, 1, 2]], expected: [1, 2, 3] },
  { input: [[]], expected: [] },
  { input: [[10, -1, 9, 10]], expected: [-1, 9, 10, 10] },
];
const py: HarnessTask = { language: 'python', entryPoint: 'sort_list', tests: { kind: 'io', cases } };
const js: HarnessTask = { language: 'javascript', entryPoint: 'sort_list', tests: { kind: 'io', cases } };
// one case: a sleeping test costs a whole wall ceiling (3.7 s at 700 ms), twice here
const py1: HarnessTask = { ...py, tests: { kind: 'io', cases: cases.slice(0, 1) } };
const js1: HarnessTask = { ...js, tests: { kind: 'io', cases: cases.slice(0, 1) } };

const solutions: { name: string; task: HarnessTask; src: string; passRate: number }[] = [
  { name: 'py correct', task: py, src: 'def sort_list(xs):\n    return sorted(xs)\n', passRate: 1 },
  { name: 'py buggy', task: py, src: 'def sort_list(xs):\n    return sorted(set(xs))\n', passRate: 2 / 3 },
  { name: 'js correct', task: js, src: 'function sort_list(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n', passRate: 1 },
  { name: 'js async function (awaited)', task: js, src: 'async function sort_list(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n', passRate: 1 },
  // ~10 s of CPU a call against 700 ms: too slow on any host
  { name: 'py genuinely too slow', task: py, src: 'def sort_list(xs):\n    sum(i * i for i in range(10 ** 8))\n    return sorted(xs)\n', passRate: 0 },
  { name: 'js loops forever', task: js, src: 'function sort_list(xs) {\n  for (;;) {}\n}\n', passRate: 0 },
  { name: 'py sleeps', task: py1, src: 'import time\ndef sort_list(xs):\n    time.sleep(60)\n    return sorted(xs)\n', passRate: 0 },
  {
    name: 'js blocks (Atomics.wait)',
    task: js1,
    src: 'function sort_list(xs) {\n  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);\n  return [...xs].sort((a, b) => a - b);\n}\n',
    passRate: 0,
  },
];

type Outcome = { status: string; reward: number | null; testsPassed: number; details: string[] };
const outcome = (r: ScoreResult): Outcome => ({
  status: r.status,
  reward: r.reward,
  testsPassed: r.components.testsPassed,
  // what kind of failure, not its numbers
  details: r.harness.tests.map((t) => (t.passed ? 'passed' : t.detail.split(/[ (:]/)[0]!)),
});

/** Score every solution; an unscored "host too busy" result is retried, as the system does. */
async function scoreAll(): Promise<{ outcomes: Map<string, Outcome>; busyRetries: number }> {
  const outcomes = new Map<string, Outcome>();
  let busyRetries = 0;
  for (const s of solutions) {
    let r: ScoreResult | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      r = await scoreSolution(manager, { runtime: 'bwrap', limits: { memoryMb: 512 } }, s.task, s.src, { testTimeoutMs: 700 });
      if (!(r.status === 'sandbox_error' && /too busy/.test(r.harness.harnessError ?? ''))) break;
      busyRetries++;
    }
    outcomes.set(s.name, outcome(r!));
  }
  return { outcomes, busyRetries };
}

describe('a busy host does not change a reward (issue 32)', () => {
  it('scores the reward set the same idle and with every core saturated', async () => {
    const idle = await scoreAll();
    const hog = saturate();
    let busy: Awaited<ReturnType<typeof scoreAll>>;
    try {
      busy = await scoreAll();
    } finally {
      hog.stop();
    }
    console.log(`busy host: ${busy.busyRetries} unscored "too busy" runs retried; idle: ${idle.busyRetries}`);
    for (const s of solutions) {
      const a = idle.outcomes.get(s.name)!;
      const b = busy.outcomes.get(s.name)!;
      expect(a.status, s.name).toBe('scored');
      expect(a.testsPassed / (s.task.tests.kind === 'io' ? s.task.tests.cases.length : 1), s.name).toBeCloseTo(s.passRate, 5);
      expect(b, s.name).toEqual(a);
    }
  }, 300_000);
});
