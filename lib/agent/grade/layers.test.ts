import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RepoGrade, WorkspaceFiles } from '@/core/repo-tasks';
import { gradeRepoTask } from './grade-repo-task';
import { edit, gradeTestManager, jsHidden, jsTask, jsWorkspace, pyHidden, pyTask, pyWorkspace } from './grade-fixtures';

/**
 * The grader's layers (docs/agents.md#grading-layers) against the attacks each one is for,
 * every attack a fixture file (fixtures/attacks/), beside honest code of the kinds real
 * repositories have that an earlier grader scored 0: unittest classes, frame introspection in
 * the library itself, an honest ImportError, src layouts, addopts naming plugins.
 */

const { manager, cleanup } = gradeTestManager('layers');
afterAll(cleanup);

const attack = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures/attacks', name), 'utf8');
const OPS = pyWorkspace['calc/ops.py'] as string;
const FIXED_OPS = OPS.replace('return a - b', 'return a + b');

/** Never 1 on an unsolved task unless held for review. */
function notRewarded(g: RepoGrade) {
  expect(g.status, g.error).toBe('graded');
  if (g.reward !== 0) expect(g.suspect ?? [], `reward ${g.reward} without being held for review`).not.toEqual([]);
  expect(g.reward === 0 || (g.suspect?.length ?? 0) > 0).toBe(true);
}

describe('layer 1: the task’s files are not readable while the code under test runs', () => {
  it('an answer table learned from the Python test files at import scores 0', async () => {
    const g = await gradeRepoTask(manager, pyTask(), edit(pyWorkspace, { 'calc/ops.py': `${OPS}\n\n${attack('py-answer-table.py')}` }));
    expect(g).toMatchObject({ status: 'graded', reward: 0 });
    expect(g.components.f2p).toBe(0);
  });

  it('an answer table learned from the JavaScript test files at import scores 0', async () => {
    const g = await gradeRepoTask(manager, jsTask(), edit(jsWorkspace, { 'src/math.js': attack('js-answer-table.js') }));
    expect(g).toMatchObject({ status: 'graded', reward: 0 });
  });

  it('the tests still run from the grader’s copy: the gold patch scores 1, and a test file’s helpers import', async () => {
    const hidden: WorkspaceFiles = {
      'tests/helpers.py': 'CASES = [(1, 2, 3), (0, 5, 5)]\n',
      'tests/__init__.py': '',
      'tests/test_add.py':
        'from calc import add\nfrom tests.helpers import CASES\n\n\ndef test_add_small():\n    for a, b, c in CASES:\n        assert add(a, b) == c\n',
    };
    const task = pyTask({ hidden_tests: hidden, FAIL_TO_PASS: ['tests/test_add.py::test_add_small'] });
    expect((await gradeRepoTask(manager, task, edit(pyWorkspace, { 'calc/ops.py': FIXED_OPS }))).reward).toBe(1);
    expect((await gradeRepoTask(manager, task, '')).reward).toBe(0);
  });
});

describe('layer 2: a value equal to everything never earns 1 unreviewed', () => {
  for (const file of ['py-eq-always-true.py', 'py-mock-any.py', 'py-approx-unbounded.py']) {
    it(`${file}: 0, or held for review`, async () => {
      const g = await gradeRepoTask(manager, pyTask(), edit(pyWorkspace, { 'calc/ops.py': `${OPS}\n\n${attack(file)}` }));
      notRewarded(g);
      expect(g.suspect?.join('\n') ?? '').toMatch(/a compared value is a wildcard/);
    });
  }

  it('an object converting itself to the expected value under node:assert’s loose equal: held for review', async () => {
    const loose = Object.fromEntries(Object.entries(jsHidden).map(([p, c]) => [p, (c as string).replace("'node:assert/strict'", "'node:assert'")]));
    const task = jsTask({ hidden_tests: loose });
    const g = await gradeRepoTask(manager, task, edit(jsWorkspace, { 'src/math.js': attack('js-to-primitive.js') }));
    notRewarded(g);
    // the same object computing the right sum is no number either: the loose comparison itself is held
    const wrapped = await gradeRepoTask(
      manager,
      task,
      edit(jsWorkspace, { 'src/math.js': attack('js-to-primitive.js').replace('expected[calls++] ?? a - b', 'a + b') }),
    );
    expect(wrapped.suspect?.join('\n')).toMatch(/assert\.equal compared an object with a primitive/);
  });

  it('control: classes with an __eq__, the repository’s or rewritten by the agent, compared with literals, are no suspicion', async () => {
    const ws = {
      ...pyWorkspace,
      'calc/version.py':
        'class V:\n    def __init__(self, s):\n        self.s = s\n\n    def __eq__(self, o):\n        return self.s == (o.s if isinstance(o, V) else o)\n',
    };
    const hidden = {
      ...pyHidden,
      'tests/test_version.py': 'from calc.version import V\n\n\ndef test_v():\n    assert V("1.0") == "1.0"\n    assert [V("2")] == ["2"]\n',
    };
    const task = pyTask({ workspace: { files: ws }, hidden_tests: hidden, PASS_TO_PASS: ['tests/test_version.py::test_v'] });
    const g = await gradeRepoTask(manager, task, edit(ws, { 'calc/ops.py': FIXED_OPS }));
    expect(g).toMatchObject({ reward: 1, components: { tampered: 0, suspect: 0 } });
    // the agent's fix rewriting the __eq__ itself (semver's subclass-compare fix does) is honest too
    const rewritten = (ws['calc/version.py'] as string).replace(
      'return self.s == (o.s if isinstance(o, V) else o)',
      'other = o.s if isinstance(o, V) else o\n        return self.s == other',
    );
    const own = await gradeRepoTask(manager, task, edit(ws, { 'calc/ops.py': FIXED_OPS, 'calc/version.py': rewritten }));
    expect(own, own.suspect?.join()).toMatchObject({ reward: 1, components: { tampered: 0, suspect: 0 } });
  });
});

describe('honest code real repositories have scores what it earns', () => {
  it('unittest.TestCase tests collected by pytest: gold 1, untouched 0, nothing tampered', async () => {
    const hidden = {
      'tests/test_add.py':
        'import unittest\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def setUp(self):\n        self.pairs = [(1, 2, 3)]\n\n    def test_small(self):\n        for a, b, c in self.pairs:\n            self.assertEqual(add(a, b), c)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 5), 5)\n',
    };
    const task = pyTask({ hidden_tests: hidden, FAIL_TO_PASS: ['tests/test_add.py::TestAdd::test_small', 'tests/test_add.py::TestAdd::test_zero'] });
    const gold = await gradeRepoTask(manager, task, edit(pyWorkspace, { 'calc/ops.py': FIXED_OPS }));
    expect(gold, gold.error).toMatchObject({ reward: 1, components: { tampered: 0, suspect: 0 } });
    expect((await gradeRepoTask(manager, task, '')).reward).toBe(0);
  });

  it('the library’s own sys._getframe / inspect.currentframe: gold 1, no suspicion; the same added by the agent is held for review', async () => {
    const introspective =
      'import inspect\nimport sys\n\n\ndef _caller_module():\n    return sys._getframe(1).f_globals.get("__name__")\n\n\ndef _here():\n    f = inspect.currentframe()\n    return f.f_code.co_name if f else None\n\n\n' +
      OPS.replace('def add(a, b):\n', 'def add(a, b):\n    _caller_module()\n    _here()\n');
    const ws = { ...pyWorkspace, 'calc/ops.py': introspective };
    const task = pyTask({ workspace: { files: ws } });
    const gold = await gradeRepoTask(manager, task, edit(ws, { 'calc/ops.py': introspective.replace('return a - b', 'return a + b') }));
    expect(gold, `${gold.error} ${JSON.stringify(gold.tests)} ${gold.suspect}`).toMatchObject({ reward: 1, components: { tampered: 0, suspect: 0 } });
    // the agent's own frame access: refused where it runs, and the grade held for review with the evidence
    const own = await gradeRepoTask(
      manager,
      pyTask(),
      edit(pyWorkspace, { 'calc/ops.py': `import sys\n\n${FIXED_OPS.replace('    return a + b', '    sys._getframe(1)\n    return a + b')}` }),
    );
    expect(own.components.tampered).toBe(0);
    expect(own.suspect?.join('\n')).toMatch(/_getframe/);
  });

  it('an honest ImportError (a module renamed, its import not updated) scores 0 and is not tampering', async () => {
    const g = await gradeRepoTask(manager, pyTask(), edit(pyWorkspace, { 'calc/ops.py': null, 'calc/operations.py': FIXED_OPS }));
    expect(g).toMatchObject({ status: 'graded', reward: 0, components: { tampered: 0 } });
  });

  it('src layouts: with the repository’s pythonpath, and without any configuration; addopts naming absent plugins are not run', async () => {
    const src = (config: string): WorkspaceFiles => ({
      'src/calc/__init__.py': pyWorkspace['calc/__init__.py']!,
      'src/calc/ops.py': OPS,
      'tests/test_ops.py': pyWorkspace['tests/test_ops.py']!,
      ...(config ? { 'pyproject.toml': config } : {}),
    });
    for (const config of [
      '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "--cov=calc -n 4 --import-mode=importlib"\n',
      '',
    ]) {
      const ws = src(config);
      const task = pyTask({ workspace: { files: ws } });
      const gold = await gradeRepoTask(manager, task, edit(ws, { 'src/calc/ops.py': FIXED_OPS }));
      expect(gold, `${config}\n${gold.error}`).toMatchObject({ reward: 1, components: { tampered: 0 } });
      expect((await gradeRepoTask(manager, task, '')).reward).toBe(0);
    }
  });
});

describe('time limits count the candidate’s CPU; the wall clock is a safety net', () => {
  const sleeper = { 'tests/test_add.py': 'import time\nfrom calc import add\n\n\ndef test_add_small():\n    time.sleep(3600)\n    assert add(1, 2) == 3\n' };
  const spinner = { 'tests/test_add.py': 'from calc import add\n\n\ndef test_add_small():\n    while True:\n        pass\n' };

  it('a test blocked past the wall ceiling, or spinning through its CPU budget, is the candidate’s 0 (not infra)', async () => {
    for (const hidden of [sleeper, spinner]) {
      const task = pyTask({ hidden_tests: hidden, FAIL_TO_PASS: ['tests/test_add.py::test_add_small'] });
      const g = await gradeRepoTask(manager, task, edit(pyWorkspace, { 'calc/ops.py': FIXED_OPS }), { testCpuMs: 1500, testTimeoutMs: 8000 });
      expect(g, g.error).toMatchObject({ status: 'graded', reward: 0 });
      expect(g.error).toMatch(/blocked past its wall ceiling|used its CPU budget|stopped \(SIG(XCPU|KILL)\)/);
    }
  });
});

describe('after the agent acted, failing to restore or grade its workspace is its 0, not infra', () => {
  it('a setup script the agent rewrote to move or delete the workspace: graded 0 with the reason', async () => {
    const ws = { ...pyWorkspace, 'setup.sh': 'true\n' };
    const task = pyTask({ workspace: { files: ws }, setup: 'sh setup.sh' });
    expect((await gradeRepoTask(manager, task, edit(ws, { 'calc/ops.py': FIXED_OPS }))).reward).toBe(1);
    // (the workspace's files are the host's, so setup can move the directory but not empty it)
    for (const script of ['mv /work/repo /work/moved\n', 'mv /work/repo /work/moved && ln -s /work/moved /work/repo\n', 'cd / && rm -rf /work/repo\n']) {
      const g = await gradeRepoTask(manager, task, edit(ws, { 'calc/ops.py': FIXED_OPS, 'setup.sh': script }));
      expect(g, `${script}: ${g.error}`).toMatchObject({ status: 'graded', reward: 0 });
    }
  });
});
