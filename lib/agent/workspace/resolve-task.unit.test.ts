import { describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine } from '@/core/repo-tasks';
import { resolveRepoTask } from './resolve-task';
import { workspaceSha256 } from './workspace-hash';

const workspace = { 'calc.py': 'def add(a, b):\n    return a - b\n', 'tests/test_old.py': 'def test_old():\n    pass\n' };
const base = {
  id: 'calc-add',
  language: 'python',
  problem_statement: 'add subtracts',
  workspace: { files: workspace },
  FAIL_TO_PASS: ['tests/test_add.py::test_add'],
};

describe('resolveRepoTask', () => {
  it('hashes the workspace and fills the defaults (environment "repo")', () => {
    const task = resolveRepoTask(crucibleRepoTaskLine.parse(base), { baseDir: '/' });
    expect(task).toMatchObject({ id: 'calc-add', environment: 'repo', hiddenTests: {}, setup: null, testCommand: null, passToPass: [], goldPatch: null });
    expect(task.workspaceSha256).toBe(workspaceSha256(workspace));
  });

  it('turns test_patch into hidden test files (added and changed files), inline hidden_tests winning', () => {
    const test_patch = [
      'diff --git a/tests/test_add.py b/tests/test_add.py',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/tests/test_add.py',
      '@@ -0,0 +1,2 @@',
      '+def test_add():',
      '+    assert __import__("calc").add(1, 2) == 3',
      'diff --git a/tests/test_old.py b/tests/test_old.py',
      '--- a/tests/test_old.py',
      '+++ b/tests/test_old.py',
      '@@ -1,2 +1,2 @@',
      ' def test_old():',
      '-    pass',
      '+    assert True',
      '',
    ].join('\n');
    const task = resolveRepoTask(crucibleRepoTaskLine.parse({ ...base, test_patch, hidden_tests: { 'tests/conftest.py': '' }, env: 'py311' }), {
      baseDir: '/',
    });
    expect(task.hiddenTests).toEqual({
      'tests/test_add.py': 'def test_add():\n    assert __import__("calc").add(1, 2) == 3\n',
      'tests/test_old.py': 'def test_old():\n    assert True\n',
      'tests/conftest.py': '',
    });
    expect(task.workspace).toEqual(workspace); // the agent never sees them
    expect(task.environment).toBe('py311');
  });

  it('says which task and hunk when test_patch does not apply', () => {
    const test_patch = '--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a * b\n+    return a + b\n';
    expect(() => resolveRepoTask(crucibleRepoTaskLine.parse({ ...base, test_patch }), { baseDir: '/' })).toThrow(
      /task calc-add: test_patch does not apply.*calc\.py: hunk 1/,
    );
  });
});
