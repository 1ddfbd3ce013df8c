import { childEnv, settings } from '@/core/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { HarnessTask } from './harness';
import { scoreSolution } from './reward';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { storeDirFor } from '@/lib/sandbox/env/env-store';

let manager: SandboxManager;
let dataDir: string;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-reward-'));
  fs.chmodSync(dataDir, 0o755); // sandboxed processes run as nobody and must reach the env store
  manager = new SandboxManager({ dataDir, storeDir: storeDirFor(dataDir), runtime: runtimeOptions(settings()) });
  ensureDefaultEnvironment(manager.storeDir);
});
afterAll(async () => {
  await manager.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const cases = [
  { input: [[3, 1, 2]], expected: [1, 2, 3] },
  { input: [[]], expected: [] },
  { input: [[10, -1, 9, 10]], expected: [-1, 9, 10, 10] },
];
const py: HarnessTask = { language: 'python', entryPoint: 'sort_list', tests: { kind: 'io', cases } };
const js: HarnessTask = { language: 'javascript', entryPoint: 'sort_list', tests: { kind: 'io', cases } };

type Expect = { passRate: number; minReward?: number; maxReward?: number; detail?: RegExp };

/** The reward-reliability set: each solution must score as a careful human would score it. */
const solutions: { name: string; task: HarnessTask; src: string; expect: Expect }[] = [
  { name: 'py correct', task: py, src: 'def sort_list(xs):\n    return sorted(xs)\n', expect: { passRate: 1, minReward: 0.99 } },
  { name: 'py buggy (drops duplicates)', task: py, src: 'def sort_list(xs):\n    return sorted(set(xs))\n', expect: { passRate: 2 / 3 } },
  {
    name: 'py noisy but correct',
    task: py,
    src: 'import sys\ndef sort_list(xs):\n    print("debug", xs)\n    print("warn", file=sys.stderr)\n    return sorted(xs)\n',
    expect: { passRate: 1, minReward: 0.99 },
  },
  { name: 'py raises', task: py, src: 'def sort_list(xs):\n    raise ValueError("nope")\n', expect: { passRate: 0, maxReward: 0, detail: /ValueError/ } },
  { name: 'py loops forever', task: py, src: 'def sort_list(xs):\n    while True:\n        pass\n', expect: { passRate: 0, maxReward: 0, detail: /timeout/ } },
  {
    name: 'py loop that swallows the timer',
    task: py,
    src: 'def sort_list(xs):\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n',
    expect: { passRate: 0, maxReward: 0 },
  },
  { name: 'py sys.exit(0)', task: py, src: 'import sys\ndef sort_list(xs):\n    sys.exit(0)\n', expect: { passRate: 0, maxReward: 0, detail: /exit/ } },
  {
    name: 'py os._exit(0) at import',
    task: py,
    src: 'import os\nos._exit(0)\ndef sort_list(xs):\n    return sorted(xs)\n',
    expect: { passRate: 0, maxReward: 0 },
  },
  // the subclass leaves the candidate's process as the plain (empty) list it holds, and its
  // __eq__ never runs where the comparison is made: it passes only the case [] really answers
  {
    name: 'py __eq__ always true',
    task: py,
    src: 'class Any(list):\n    def __eq__(self, o):\n        return True\ndef sort_list(xs):\n    return Any()\n',
    expect: { passRate: 1 / 3, detail: /returned \[\]/ },
  },
  { name: 'py returns tuple (plain, equal as a list)', task: py, src: 'def sort_list(xs):\n    return tuple(sorted(xs))\n', expect: { passRate: 1 } },
  {
    name: 'py looks for the expected values (not reachable)',
    task: py,
    src: 'import glob\ndef sort_list(xs):\n    for f in glob.glob("/tmp/.*") + glob.glob("/tmp/*") + glob.glob("/work/*"):\n        try:\n            if "9, 10, 10]" in open(f).read():\n                return "found"\n        except Exception:\n            pass\n    return None\n',
    expect: { passRate: 0, maxReward: 0, detail: /^(?!.*found).*$/ },
  },
  { name: 'js correct', task: js, src: 'function sort_list(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n', expect: { passRate: 1, minReward: 0.99 } },
  { name: 'js buggy (string sort)', task: js, src: 'function sort_list(xs) {\n  return [...xs].sort();\n}\n', expect: { passRate: 2 / 3 } },
  {
    name: 'js noisy but correct',
    task: js,
    src: 'function sort_list(xs) {\n  console.log("debug");\n  console.error("warn");\n  return [...xs].sort((a, b) => a - b);\n}\n',
    expect: { passRate: 1 },
  },
  { name: 'js loops forever', task: js, src: 'function sort_list(xs) {\n  for (;;) {}\n}\n', expect: { passRate: 0, maxReward: 0, detail: /timeout/ } },
  { name: 'js process.exit(0)', task: js, src: 'function sort_list(xs) {\n  process.exit(0);\n}\n', expect: { passRate: 0, maxReward: 0 } },
  {
    name: 'js vm escape then exit',
    task: js,
    src: 'function sort_list(xs) {\n  return this.constructor.constructor("return process")().exit(0);\n}\n',
    expect: { passRate: 0, maxReward: 0 },
  },
  {
    name: 'js toJSON/valueOf tricks',
    task: js,
    src: 'function sort_list(xs) {\n  return { toJSON() { return [1, 2, 3]; }, valueOf() { return [1, 2, 3]; } };\n}\n',
    expect: { passRate: 0, maxReward: 0 },
  },
  {
    name: 'js async function (awaited)',
    task: js,
    src: 'async function sort_list(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n',
    expect: { passRate: 1 },
  },
];

describe('reward reliability set', () => {
  for (const s of solutions) {
    it(s.name, async () => {
      const r = await scoreSolution(manager, { runtime: 'bwrap', limits: { memoryMb: 512, timeoutMs: 20_000 } }, s.task, s.src, { testTimeoutMs: 700 });
      expect(r.status, r.harness.exec.stderr).toBe('scored');
      expect(r.envHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(r.components.passRate).toBeCloseTo(s.expect.passRate, 5);
      if (s.expect.minReward !== undefined) expect(r.reward!).toBeGreaterThanOrEqual(s.expect.minReward);
      if (s.expect.maxReward !== undefined) expect(r.reward!).toBeLessThanOrEqual(s.expect.maxReward);
      if (s.expect.detail) expect(r.harness.tests.map((t) => t.detail).join(' ')).toMatch(s.expect.detail);
    });
  }

  it('style: a syntax error scores 0; lint issues lower the style component', async () => {
    const broken = await scoreSolution(manager, { runtime: 'bwrap' }, py, 'def sort_list(xs)\n    return sorted(xs)\n', { testTimeoutMs: 700 });
    expect(broken.components).toMatchObject({ passRate: 0, style: 0 });
    const sloppy = await scoreSolution(
      manager,
      { runtime: 'bwrap' },
      js,
      'function sort_list(xs) {\n  var ys = [...xs];   \n  if (ys.length == 0) return ys;\n  return ys.sort((a, b) => a - b);\n}\n',
      { testTimeoutMs: 700 },
    );
    expect(sloppy.components.passRate).toBe(1);
    expect(sloppy.components.style).toBeCloseTo(0.4, 5);
    expect(sloppy.harness.style.issues).toEqual(expect.arrayContaining(['var declaration', 'loose equality (== or !=)', 'trailing whitespace']));
  });

  it('HumanEval check(): passes a correct solution, fails an __eq__ hack', async () => {
    const he: HarnessTask = {
      language: 'python',
      entryPoint: 'add',
      tests: { kind: 'humaneval', check: 'def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n' },
    };
    const good = await scoreSolution(manager, { runtime: 'bwrap' }, he, 'def add(a, b):\n    return a + b\n', { testTimeoutMs: 700 });
    expect(good.components).toMatchObject({ passRate: 1, testsTotal: 1 });
    const hack = await scoreSolution(
      manager,
      { runtime: 'bwrap' },
      he,
      'class T(int):\n    def __eq__(s, o):\n        return True\ndef add(a, b):\n    return T(0)\n',
      { testTimeoutMs: 700 },
    );
    expect(hack.components.passRate).toBe(0);
  });
});

describe('efficiency measures the code, not the machine', () => {
  it('the same solution re-run 20 times on a loaded host gets one reward; a CPU hog gets less', async () => {
    const { spawn } = await import('node:child_process');
    // two busy processes: every core of this host is contended while scoring
    const burners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      const rewards = new Set<number>();
      const cpu: number[] = [];
      const wall: number[] = [];
      for (let i = 0; i < 20; i++) {
        // ~20 ms of real work a call: its wall time swings with the load, its CPU time barely moves
        const r = await scoreSolution(
          manager,
          { runtime: 'bwrap', limits: { memoryMb: 512 } },
          py,
          'def sort_list(xs):\n    sum(i * i for i in range(150000))\n    return sorted(xs)\n',
          { testTimeoutMs: 2000 },
        );
        expect(r.status).toBe('scored');
        rewards.add(r.reward!);
        cpu.push(r.harness.exec.usage.cpuMs);
        wall.push(r.harness.tests.reduce((a, t) => a + t.ms, 0) / r.harness.tests.length);
      }
      console.log(
        `20 re-runs under load: rewards ${[...rewards].join(', ')}; cgroup CPU ms ${Math.min(...cpu)}–${Math.max(...cpu)}; mean test wall ms ${Math.min(...wall).toFixed(1)}–${Math.max(...wall).toFixed(1)}`,
      );
      expect([...rewards]).toEqual([1]);
      // 1.4 s of CPU in the first call: over the budget (1 s + 50 ms a test)
      const hog = await scoreSolution(
        manager,
        { runtime: 'bwrap', limits: { cpus: 1, memoryMb: 512 } },
        py,
        'import time\n_spent = False\ndef sort_list(xs):\n    global _spent\n    t = time.process_time()\n    while not _spent and time.process_time() - t < 1.4:\n        pass\n    _spent = True\n    return sorted(xs)\n',
        { testTimeoutMs: 8000 },
      );
      expect(hog.components.passRate).toBe(1);
      expect(hog.components.efficiency).toBeLessThan(1);
    } finally {
      for (const b of burners) b.kill('SIGKILL');
    }
  }, 180_000);
});

describe('crucible reward score', () => {
  it('prints {reward, components, status, envHash} for a solution file', async () => {
    const { execFile } = await import('node:child_process');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-score-'));
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(
      path.join(dir, 'tasks.jsonl'),
      JSON.stringify({
        id: 'sq',
        language: 'javascript',
        prompt: 'function sq(x) {\n',
        entryPoint: 'sq',
        tests: [
          { input: [3], expected: 9 },
          { input: [-2], expected: 4 },
        ],
      }) + '\n',
    );
    fs.writeFileSync(path.join(dir, 'sol.js'), 'function sq(x) {\n  return x > 0 ? x * x : 0;\n}\n');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'node',
        ['scripts/crucible.mjs', 'reward', 'score', '--tasks', path.join(dir, 'tasks.jsonl'), '--task', 'sq', '--solution', path.join(dir, 'sol.js'), '--json'],
        { env: childEnv({ CRUCIBLE_DATA_DIR: path.join(dir, 'data') }) },
        (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out);
    expect(r).toMatchObject({ status: 'scored', components: { passRate: 0.5, testsPassed: 1, testsTotal: 2 } });
    expect(r.reward).toBeGreaterThan(0.4);
    expect(r.reward).toBeLessThan(1);
    expect(r.envHash).toMatch(/^sha256:/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the contract for HumanEval files: check() sees the helpers the prompt defines', async () => {
    const { execFile } = await import('node:child_process');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-score-he-'));
    fs.chmodSync(dir, 0o755);
    const prompt = 'def poly(xs, x):\n    return sum(c * x ** i for i, c in enumerate(xs))\n\ndef root(xs):\n    """A root of the linear polynomial xs."""\n';
    const test = 'def check(candidate):\n    assert abs(poly([2, 4], candidate([2, 4]))) < 1e-9\n';
    fs.writeFileSync(path.join(dir, 'he.jsonl'), JSON.stringify({ task_id: 'T/1', prompt, test, entry_point: 'root' }) + '\n');
    fs.writeFileSync(path.join(dir, 'sol.py'), `${prompt}    return -xs[0] / xs[1]\n`);
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'node',
        ['scripts/crucible.mjs', 'reward', 'score', '--tasks', path.join(dir, 'he.jsonl'), '--task', 'T/1', '--solution', path.join(dir, 'sol.py'), '--json'],
        { env: childEnv({ CRUCIBLE_DATA_DIR: path.join(dir, 'data') }) },
        (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out);
    expect(r).toMatchObject({ status: 'scored', reward: 1, components: { passRate: 1, testsPassed: 1, testsTotal: 1, style: 1, efficiency: 1 } });
    expect(r.envHash).toMatch(/^sha256:/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
