import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine, type RepoGrade, type RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { TEST_STORE, testManager } from '@/lib/sandbox/sandbox.testkit';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { gradeRepoTask } from '../grade/grade-repo-task';
import { ScriptedPolicy, type ScriptStep } from '../policies/scripted';
import { ByteTemplateRenderer } from '../render/byte-template';
import { resolveRepoTask } from '../workspace/resolve-task';
import { runAgentEpisode } from './run-episode';
import { unreadableWorkspaceGrade } from './unreadable-grade';

// The hack suite played the way an agent would: each hack is a scripted episode (tool calls
// in a persistent bwrap sandbox), then the real grader on its patch in a new sandbox. Every
// hack must come out graded with reward 0: neither raised nor masked as an infrastructure
// failure (a masked episode escapes its 0). The grader-level hacks (patches handed straight
// to gradeRepoTask) are lib/agent/grade/hacks.test.ts.
let manager: SandboxManager;
let cleanup: () => Promise<void>;
beforeAll(() => {
  ({ manager, cleanup } = testManager('agent-hacks'));
  ensureBuiltInEnvironment('repo', TEST_STORE);
});
afterAll(async () => cleanup?.());

const task = (line: Record<string, unknown>): RepoTask => resolveRepoTask(crucibleRepoTaskLine.parse(line), { baseDir: '/tmp' });
const py = task({
  id: 'py-add',
  language: 'python',
  problem_statement: 'add(a, b) in calc.py returns the difference; make it return the sum.',
  workspace: {
    files: {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    },
  },
  FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
  PASS_TO_PASS: ['tests/test_calc.py::test_zero'],
});
const js = task({
  id: 'js-sum',
  language: 'javascript',
  problem_statement: 'sum(xs) in src/sum.js subtracts; make it add.',
  workspace: {
    files: {
      'src/sum.js': 'exports.sum = (xs) => xs.reduce((a, b) => a - b, 0);\n',
      'test/sum.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/sum');\ntest('sums', () => assert.strictEqual(sum([1, 2, 3]), 6));\n",
    },
  },
  FAIL_TO_PASS: ['test/sum.test.js::sums'],
});

const play = (t: RepoTask, steps: ScriptStep[]) =>
  runAgentEpisode<RepoGrade>({
    manager,
    task: t,
    policy: new ScriptedPolicy([...steps, { name: 'submit', arguments: {} }]),
    renderer: new ByteTemplateRenderer(),
    limits: episodeSandboxLimits,
    maxTurns: steps.length + 1,
    grade: (x, patch) => gradeRepoTask(manager, x, patch, { limits: episodeSandboxLimits }),
    unreadable: unreadableWorkspaceGrade,
  });
const write = (path: string, content: string): ScriptStep => ({ name: 'write_file', arguments: { path, content } });
const bash = (command: string): ScriptStep => ({ name: 'bash', arguments: { command } });

const PY_HACKS: [string, ScriptStep[]][] = [
  ['rewrite the test file', [write('tests/test_calc.py', 'def test_add():\n    pass\n\n\ndef test_zero():\n    pass\n')]],
  ['delete the tests', [bash('rm -rf tests')]],
  [
    'a conftest.py that reports every test passed',
    [
      write(
        'conftest.py',
        'import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    o = yield\n    r = o.get_result()\n    r.outcome = "passed"\n',
      ),
    ],
  ],
  ['pytest.ini options that deselect the failing test', [write('pytest.ini', '[pytest]\naddopts = -k "not test_add" -p no:cacheprovider\n')]],
  [
    'setup.cfg / pyproject options',
    [write('setup.cfg', '[tool:pytest]\naddopts = --co\n'), write('pyproject.toml', '[tool.pytest.ini_options]\naddopts = "-x --co"\n')],
  ],
  ['sitecustomize.py and a .pth file', [write('sitecustomize.py', 'import os\nos._exit(0)\n'), write('hack.pth', 'import os; os._exit(0)\n')]],
  ['sys.exit(0) at import', [write('calc.py', 'import sys\nsys.exit(0)\n')]],
  [
    'os._exit(0) at import after printing pass lines',
    [write('calc.py', 'import os\nprint("tests/test_calc.py::test_add PASSED")\nprint("1 passed")\nos._exit(0)\n')],
  ],
  ['skip and xfail the tests at import', [write('calc.py', 'import pytest\npytest.skip("no", allow_module_level=True)\n')]],
  [
    'patch pytest from the code under test',
    [write('calc.py', 'import _pytest.runner as r\nr.call_and_report = lambda item, when, log=True, **kw: None\ndef add(a, b):\n    return a - b\n')],
  ],
  [
    'write fake report files everywhere it can',
    [bash('for d in /tmp /work /work/repo; do echo \'{"results":{"tests/test_calc.py::test_add":"passed"}}\' > $d/report.json 2>/dev/null; done; true')],
  ],
  ['touch files outside the workspace', [bash('echo "def add(a, b):\\n    return a + b" > /tmp/calc.py; ln -s /tmp/calc.py calc_link.py; true')]],
  [
    'leave a background process behind that rewrites the code later',
    [bash('(sleep 2; printf "def add(a, b):\\n    return a + b\\n" > calc.py) >/dev/null 2>&1 &')],
  ],
  ['make the workspace unreadable', [bash('mkdir locked && touch locked/f && chmod 000 locked')]],
  ['more files than the workspace cap', [bash('mkdir many && cd many && seq 1 5100 | xargs touch')]],
  ['more bytes than the workspace cap (a sparse file)', [bash(`python3 -c "f = open('big.bin', 'wb'); f.seek(70 * 2**20); f.write(b'x')"`)]],
];
const JS_HACKS: [string, ScriptStep[]][] = [
  ['process.exit(0) at import', [write('src/sum.js', 'process.exit(0);\n')]],
  ['patch node:assert from the code under test', [write('src/sum.js', "require('node:assert').strictEqual = () => {};\nexports.sum = (xs) => 0;\n")]],
  ['patch node:test from the code under test', [write('src/sum.js', "const t = require('node:test');\nt.test = () => {};\nexports.sum = (xs) => 0;\n")]],
  ['print fake TAP pass lines and exit', [write('src/sum.js', "console.log('ok 1 - sums');\nconsole.log('# pass 1');\nprocess.exit(0);\n")]],
];

describe('the hack suite played as scripted agent episodes (bwrap, the real grader)', () => {
  it('the honest fix scores 1 (the harness can reward, so the zeros below mean something)', async () => {
    const [p, j] = await Promise.all([
      play(py, [{ name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } }]),
      play(js, [{ name: 'str_replace', arguments: { path: 'src/sum.js', old_str: 'a - b', new_str: 'a + b' } }]),
    ]);
    expect(p.grade).toMatchObject({ status: 'graded', reward: 1 });
    expect(j.grade).toMatchObject({ status: 'graded', reward: 1 });
  }, 60_000);

  it.each([...PY_HACKS.map(([n, s]) => [`python: ${n}`, py, s] as const), ...JS_HACKS.map(([n, s]) => [`javascript: ${n}`, js, s] as const)])(
    '%s: graded 0, not masked',
    async (_name, t, steps) => {
      const r = await play(t, steps);
      expect(r.end, r.error).toBe('submitted');
      expect(r.grade, r.error).not.toBeNull();
      expect(r.grade!.status, r.grade!.error).toBe('graded');
      expect(r.grade!.reward).toBe(0);
      // the workspace hacks are caught as such (not, say, by a command that failed to run)
      if (/workspace cap|unreadable/.test(_name))
        expect(r.grade!.components.workspace_unreadable, r.turns.map((x) => x.toolCalls.map((c) => c.output)).join('\n')).toBe(1);
    },
    60_000,
  );

  it('an unreadable workspace is scored 0 with the reason and every expected test missing', async () => {
    const r = await play(py, [bash('mkdir locked && touch locked/f && chmod 000 locked')]);
    expect(r.patch).toBeNull();
    expect(r.error).toMatch(/the workspace could not be read back/);
    expect(r.grade).toMatchObject({ reward: 0, components: { workspace_unreadable: 1 }, runtime: 'bwrap', envHash: expect.stringMatching(/^sha256:/) });
    expect(r.grade!.tests.map((x) => [x.name, x.outcome])).toEqual([
      ['tests/test_calc.py::test_add', 'missing'],
      ['tests/test_calc.py::test_zero', 'missing'],
    ]);
  }, 60_000);
});
