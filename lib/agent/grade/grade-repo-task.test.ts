import { afterAll, describe, expect, it } from 'vitest';
import { installedRuntimes } from '@/lib/sandbox/sandbox.testkit';
import { gradeRepoTask } from './grade-repo-task';
import {
  edit,
  gradeTestManager,
  jsF2P,
  jsGold,
  jsHidden,
  jsTask,
  jsWorkspace,
  pyGold,
  pyHidden,
  pyTask,
  pyWorkspace,
  tsGold,
  tsTask,
  tsWorkspace,
} from './grade-fixtures';

// real bwrap sandboxes in the `repo` environment (default toolchain + Debian's pytest)
const { manager, cleanup } = gradeTestManager('grade');
afterAll(cleanup);

const outcomes = (g: Awaited<ReturnType<typeof gradeRepoTask>>) => Object.fromEntries(g.tests.map((t) => [t.name, t.outcome]));

describe('gradeRepoTask (python, pytest)', () => {
  const task = pyTask();

  it('gold patch → 1, untouched → 0, with per-test results from the report', async () => {
    const gold = await gradeRepoTask(manager, task, pyGold);
    expect(gold).toMatchObject({ status: 'graded', reward: 1, patchApplied: true, rejectedPaths: [], runtime: 'bwrap', workspaceSha256: task.workspaceSha256 });
    expect(gold.envHash).toMatch(/^sha256:/);
    expect(gold.components).toMatchObject({ f2p: 1, p2p: 1, p2p_all: 1, tampered: 0 });
    expect(gold.tests.every((t) => t.passed)).toBe(true);
    const none = await gradeRepoTask(manager, task, '');
    expect(none).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
    expect(outcomes(none)['tests/test_add.py::test_add_small']).toBe('failed');
  });

  it('a task’s own conftest hooks, plugins and module state are the task’s: gold 1, untouched 0, nothing tampered', async () => {
    // what the grader's hook and module checks must allow: hookwrappers and a plugin class
    // from the task's conftest, a `global` counter, module state an autouse fixture re-creates
    // through `global`, a test that monkeypatches its own module, a mock.patch-decorated test
    const conftest = [
      'import pytest',
      '',
      '',
      'class Counter:',
      '    calls = 0',
      '',
      '    @pytest.hookimpl(hookwrapper=True)',
      '    def pytest_runtest_call(self, item):',
      '        Counter.calls += 1',
      '        yield',
      '',
      '',
      'def pytest_configure(config):',
      '    config.pluginmanager.register(Counter(), "counter")',
      '',
      '',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    outcome.get_result().user_properties.append(("seen", True))',
      '',
      '',
      'def pytest_collection_modifyitems(items):',
      '    items.sort(key=lambda i: i.nodeid)',
      '',
      '',
      '@pytest.fixture',
      'def two():',
      '    return 2',
    ].join('\n');
    const hidden = {
      'tests/test_add.py': [
        'import sys',
        'import pytest',
        'from calc import add',
        '',
        'class Client:',
        '    pass',
        '',
        'client = Client()',
        'db = None',
        '',
        '',
        '@pytest.fixture(autouse=True)',
        'def fresh():',
        '    global client, db',
        '    client = Client()',
        '    db = {"n": 1}',
        '',
        'RUNS = 0',
        'def helper():',
        '    return "real"',
        '',
        '',
        'def test_add_small(two):',
        '    global RUNS',
        '    RUNS += 1',
        '    assert add(1, two) == 3',
        '',
        '',
        'from unittest import mock',
        '',
        '',
        '@mock.patch("calc.ops.neg", lambda a: -a)',
        'def test_add_patched():',
        '    assert add(2, 2) == 4',
        '',
        '',
        'def test_add_zero(monkeypatch):',
        '    monkeypatch.setattr(sys.modules[__name__], "helper", lambda: "patched")',
        '    assert helper() == "patched"',
        '    assert add(0, 5) == 5',
      ].join('\n'),
    };
    const t = pyTask({
      workspace: { files: { ...pyWorkspace, 'conftest.py': conftest } },
      hidden_tests: hidden,
      FAIL_TO_PASS: ['tests/test_add.py::test_add_small', 'tests/test_add.py::test_add_patched', 'tests/test_add.py::test_add_zero'],
    });
    const gold = await gradeRepoTask(manager, t, pyGold);
    expect(gold.error ?? null).toBeNull();
    expect(gold).toMatchObject({ status: 'graded', reward: 1, components: { tampered: 0 } });
    const none = await gradeRepoTask(manager, t, '');
    expect(none).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1, tampered: 0 } });
  });

  it('a partial fix scores the fraction of FAIL_TO_PASS; a broken PASS_TO_PASS zeroes it', async () => {
    // correct for non-negative numbers only: 3 of the 4 FAIL_TO_PASS tests pass
    const partial = edit(pyWorkspace, { 'calc/ops.py': (pyWorkspace['calc/ops.py'] as string).replace('return a - b', 'return abs(a) + b') });
    const p = await gradeRepoTask(manager, task, partial);
    expect(p.reward).toBeCloseTo(0.75);
    expect(outcomes(p)['tests/test_add.py::test_add_param[-1-1-0]']).toBe('failed');
    const broken = edit(pyWorkspace, {
      'calc/ops.py': (pyWorkspace['calc/ops.py'] as string).replace('return a - b', 'return a + b').replace('return a * b', 'return a + b'),
    });
    const b = await gradeRepoTask(manager, task, broken);
    expect(b).toMatchObject({ reward: 0, components: { f2p: 1, p2p_all: 0 } });
    // with the gate off and p2p weighted, the same grade is the weighted mean
    const w = await gradeRepoTask(manager, task, broken, { weights: { p2pGate: false, f2p: 1, p2p: 1 } });
    expect(w.reward).toBeCloseTo((1 + 0.5) / 2);
  });

  it('a patch that does not apply is graded 0 and says why; a missing test id is "missing"', async () => {
    const g = await gradeRepoTask(manager, task, '--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n-def nope():\n+def yes():\n     pass\n');
    expect(g).toMatchObject({ status: 'graded', reward: 0, patchApplied: false });
    expect(g.error).toMatch(/does not apply.*calc\/ops\.py: hunk 1/);
    const extra = pyTask({ FAIL_TO_PASS: ['tests/test_add.py::test_add_small', 'tests/test_add.py::test_not_there'] });
    const m = await gradeRepoTask(manager, extra, pyGold);
    expect(m.reward).toBe(0.5);
    expect(outcomes(m)['tests/test_add.py::test_not_there']).toBe('missing');
  });

  it('infrastructure failures are infra_error with reward null, never 0', async () => {
    const missingEnv = await gradeRepoTask(manager, { ...task, environment: 'no-such-env' }, pyGold);
    expect(missingEnv).toMatchObject({ status: 'infra_error', reward: null });
    expect(missingEnv.error).toMatch(/no grading sandbox.*no-such-env/);
    const noRuntime = await gradeRepoTask(manager, task, pyGold, { runtime: 'oci:kata-runtime' });
    expect(noRuntime).toMatchObject({ status: 'infra_error', reward: null });
    // the grader's own runner failing before any workspace code runs (here: a sandbox too small to start python)
    const tooSmall = await gradeRepoTask(manager, task, pyGold, { limits: { memoryMb: 16 } });
    expect(tooSmall.status).toBe('infra_error');
    expect(tooSmall.reward).toBeNull();
  });

  it('a hidden test that monkeypatches builtins and os (undone at teardown) is no tampering', async () => {
    const t = pyTask({
      hidden_tests: {
        ...pyHidden,
        'tests/test_patching.py':
          'import builtins, os\nfrom calc import add\n\n\ndef test_input(monkeypatch):\n    monkeypatch.setattr(builtins, "input", lambda *a: "2")\n    monkeypatch.setattr(os, "getcwd", lambda: "/x")\n    assert add(int(input()), 1) == 3 and os.getcwd() == "/x"\n',
      },
      FAIL_TO_PASS: [...pyTask().failToPass, 'tests/test_patching.py::test_input'],
    });
    const g = await gradeRepoTask(manager, t, pyGold);
    expect(g.error).toBeUndefined();
    expect(g.reward).toBe(1);
  });

  it('the test process is not readable by its own children (non-dumpable), and frames stay usable for the traceback module', async () => {
    const t = pyTask({
      hidden_tests: {
        ...pyHidden,
        'tests/test_runner_guard.py':
          'import logging, os, subprocess, sys, traceback\nfrom collections import namedtuple\n\n\n' +
          "def test_parent_memory_unreadable():\n    code = \"import sys; open('/proc/%s/mem' % sys.argv[1], 'rb').read(1)\"\n" +
          '    r = subprocess.run([sys.executable, "-c", code, str(os.getpid())], capture_output=True, text=True)\n    assert "PermissionError" in r.stderr, r.stderr\n\n\n' +
          'def test_legit_introspection(caplog):\n    P = namedtuple("P", "x y")\n    assert P.__module__ == __name__\n' +
          '    try:\n        1 / 0\n    except ZeroDivisionError:\n        text = traceback.format_exc()\n        logging.getLogger("t").exception("boom")\n' +
          '    assert "ZeroDivisionError" in text and "boom" in caplog.text\n',
      },
      FAIL_TO_PASS: [
        ...pyTask().failToPass,
        'tests/test_runner_guard.py::test_parent_memory_unreadable',
        'tests/test_runner_guard.py::test_legit_introspection',
      ],
    });
    const g = await gradeRepoTask(manager, t, pyGold);
    expect(g.error).toBeUndefined();
    expect(Object.fromEntries(g.tests.map((x) => [x.name, x.outcome]))).toMatchObject({
      'tests/test_runner_guard.py::test_parent_memory_unreadable': 'passed',
      'tests/test_runner_guard.py::test_legit_introspection': 'passed',
    });
    expect(g.reward).toBe(1);
  });

  it('leaves no sandbox behind', async () => {
    await gradeRepoTask(manager, task, pyGold);
    // destroyed, never pooled: the next grade gets a newly created sandbox
    expect(manager.stats()).toMatchObject({ busy: 0, idle: 0 });
  });

  it('runs in the repo environment: /usr/bin/python3 with Debian pytest, none of the host dist-packages extras', async () => {
    const r = await manager.exec({ env: 'repo' }, ['/usr/bin/python3', '-I', '-c', 'import pytest, pluggy, sys; print(pytest.__version__); import certifi']);
    expect(r.stdout).toMatch(/^7\./);
    expect(r.stderr).toMatch(/No module named 'certifi'/);
  });
});

describe('gradeRepoTask (javascript, node:test)', () => {
  const task = jsTask();

  it('what the reporter’s locks still allow: mocks, skip/todo, hooks, async_hooks, overriding inherited methods — gold 1, untouched 0, nothing tampered', async () => {
    // honest test suites and solutions doing what the grader's guards must not break
    const hidden = {
      'test/add.test.js': [
        "import { describe, test, before, afterEach, mock } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "import fs from 'node:fs';",
        "import { AsyncLocalStorage, executionAsyncResource, createHook } from 'node:async_hooks';",
        "import { add } from '../src/math.js';",
        '',
        'let ready = false;',
        'before(() => { ready = true; });',
        'afterEach(() => mock.restoreAll());',
        'class Money { constructor(v) { this.v = v; } }',
        'Money.prototype.toString = function () { return `$${this.v}`; };',
        '',
        "describe('add', () => {",
        "  describe('inner', () => {",
        "    test('small', () => { assert.ok(ready); assert.equal(add(1, 2), 3); });",
        '  });',
        "  test('zero', async (t) => {",
        "    t.mock.method(fs, 'readFileSync', () => 'mocked');",
        "    assert.equal(fs.readFileSync('/nope'), 'mocked');",
        '    const als = new AsyncLocalStorage();',
        '    await als.run(5, async () => { await null; assert.equal(als.getStore(), 5); });',
        "    assert.equal(typeof executionAsyncResource(), 'object');",
        '    const h = createHook({ init() {} }).enable();',
        '    await new Promise((r) => setTimeout(r, 1));',
        '    h.disable();',
        '    const xs = [1];',
        '    xs.push = function (v) { return Array.prototype.push.call(this, v * 2); };',
        '    xs.push(2);',
        '    assert.deepEqual([xs[0], xs[1], xs.length], [1, 4, 2]);',
        '    assert.equal(String(new Money(3)), "$3");',
        '    assert.equal(add(0, 5), 5);',
        '  });',
        "  test.skip('skipped', () => { assert.fail(); });",
        "  test.todo('later');",
        '});',
      ].join('\n'),
    };
    const t = jsTask({ hidden_tests: hidden, FAIL_TO_PASS: ['test/add.test.js::add > inner > small', 'test/add.test.js::add > zero'] });
    const gold = await gradeRepoTask(manager, t, jsGold);
    expect(gold.error ?? null).toBeNull();
    expect(gold, JSON.stringify(gold.tests)).toMatchObject({ status: 'graded', reward: 1, components: { tampered: 0 } });
    const none = await gradeRepoTask(manager, t, '');
    expect(none).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1, tampered: 0 } });
  });

  it('gold → 1, untouched → 0, partial → fraction, broken PASS_TO_PASS → 0; nested names joined by " > "', async () => {
    const gold = await gradeRepoTask(manager, task, jsGold);
    expect(gold).toMatchObject({ status: 'graded', reward: 1 });
    expect(Object.keys(outcomes(gold))).toEqual(['test/add.test.js::add > small', 'test/add.test.js::add > zero', 'test/mul.test.js::mul']);
    expect((await gradeRepoTask(manager, task, '')).reward).toBe(0);
    const src = jsWorkspace['src/math.js'] as string;
    const partial = await gradeRepoTask(manager, task, edit(jsWorkspace, { 'src/math.js': src.replace('return a - b', 'return a === 0 ? b : a - b') }));
    expect(partial.reward).toBe(0.5);
    const broken = await gradeRepoTask(
      manager,
      task,
      edit(jsWorkspace, { 'src/math.js': src.replace('return a - b', 'return a + b').replace('return a * b', 'return 0') }),
    );
    expect(broken).toMatchObject({ reward: 0, components: { f2p: 1, p2p_all: 0 } });
  });

  it('closes the inspector and process.binding (permission model); known gap: memory stays readable (docs/agents.md)', async () => {
    const t = jsTask({
      hidden_tests: {
        ...jsHidden,
        'test/guard.test.js':
          "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport fs from 'node:fs';\nimport { execFileSync } from 'node:child_process';\nimport inspector from 'node:inspector';\n\n" +
          "test('inspector closed', () => {\n  assert.throws(() => new inspector.Session().connect(), { code: 'ERR_ACCESS_DENIED' });\n  assert.throws(() => process.binding('inspector'), { code: 'ERR_ACCESS_DENIED' });\n});\n" +
          "test('memory readable', () => {\n  fs.closeSync(fs.openSync('/proc/self/mem', 'r'));\n  execFileSync('/usr/bin/node', ['-e', `require('fs').openSync('/proc/${process.pid}/mem', 'r')`]);\n});\n",
      },
      FAIL_TO_PASS: [...jsF2P, 'test/guard.test.js::inspector closed', 'test/guard.test.js::memory readable'],
    });
    const g = await gradeRepoTask(manager, t, jsGold);
    expect(g.error).toBeUndefined();
    expect(Object.fromEntries(g.tests.map((x) => [x.name, x.outcome]))).toMatchObject({
      'test/guard.test.js::inspector closed': 'passed',
      'test/guard.test.js::memory readable': 'passed',
    });
  });
});

describe('gradeRepoTask (TypeScript, node:test with types stripped)', () => {
  const task = tsTask();

  it('gold → 1 and untouched → 0 with .ts tests and sources (an enum, interfaces, a tsc-style .js import); a process.exit(0) fix is still 0', async () => {
    expect(task.language).toBe('javascript'); // the line said "typescript"
    const gold = await gradeRepoTask(manager, task, tsGold);
    expect(gold.error ?? null, JSON.stringify(gold.tests)).toBeNull();
    expect(gold).toMatchObject({ status: 'graded', reward: 1, components: { f2p: 1, p2p: 1, tampered: 0 } });
    expect(outcomes(gold)).toEqual({ 'test/add.test.ts::add > cases': 'passed', 'test/mul.test.ts::mul': 'passed' });
    const none = await gradeRepoTask(manager, task, '');
    expect(none).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
    // a syntax error in the solution fails its tests
    const src = tsWorkspace['src/math.ts'] as string;
    const exit = await gradeRepoTask(manager, task, edit(tsWorkspace, { 'src/math.ts': `process.exit(0);\n${src}` }));
    expect(exit).toMatchObject({ status: 'graded', reward: 0 });
    const broken = await gradeRepoTask(manager, task, edit(tsWorkspace, { 'src/math.ts': src.replace('return a - b', 'return a + b +') }));
    expect(broken).toMatchObject({ status: 'graded', reward: 0 });
  });
});

const [microvm] = installedRuntimes(['microvm']);
describe.skipIf(!microvm?.available)(`gradeRepoTask on the microVM${microvm?.available ? '' : ` (skipped: ${microvm?.reason})`}`, () => {
  // the report is the guest's file, which getFile cannot read: it comes back through the guest
  it('gold → 1, untouched → 0 (python and javascript)', async () => {
    const limits = { memoryMb: 512, diskMb: 256, pids: 128, cpus: 1 };
    for (const [task, gold] of [
      [pyTask(), pyGold],
      [jsTask(), jsGold],
    ] as const) {
      const g = await gradeRepoTask(manager, task, gold, { runtime: 'microvm', limits });
      expect(g, g.error).toMatchObject({ status: 'graded', reward: 1, runtime: 'microvm' });
      expect((await gradeRepoTask(manager, task, '', { runtime: 'microvm', limits })).reward).toBe(0);
    }
  }, 600_000);
});
