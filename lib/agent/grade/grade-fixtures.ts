import { crucibleRepoTaskLine, type RepoTask } from '@/core/repo-tasks';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import { TEST_STORE, testManager } from '@/lib/sandbox/sandbox.testkit';
import { resolveRepoTask } from '../workspace/resolve-task';
import { diffWorkspaces } from '../workspace/workspace-diff';
import type { WorkspaceFiles } from '@/core/repo-tasks';

/**
 * Small inline repository tasks the grading tests share (test-only): a Python package with a
 * subtraction bug in `add` and a JavaScript module with the same bug, each with hidden tests,
 * FAIL_TO_PASS and PASS_TO_PASS ids, and a gold patch.
 */

export const pyWorkspace: WorkspaceFiles = {
  'calc/__init__.py': 'from .ops import add, mul, neg\n',
  'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return -a\n',
  'tests/test_ops.py': 'from calc import mul, neg\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_neg():\n    assert neg(2) == -2\n',
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
};
export const pyHidden: WorkspaceFiles = {
  'tests/test_add.py':
    'import pytest\nfrom calc import add\n\n\ndef test_add_small():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():\n    assert add(0, 5) == 5\n\n\n@pytest.mark.parametrize("a,b,c", [(2, 2, 4), (-1, 1, 0)])\ndef test_add_param(a, b, c):\n    assert add(a, b) == c\n',
};
export const pyF2P = [
  'tests/test_add.py::test_add_small',
  'tests/test_add.py::test_add_zero',
  'tests/test_add.py::test_add_param[2-2-4]',
  'tests/test_add.py::test_add_param[-1-1-0]',
];
export const pyP2P = ['tests/test_ops.py::test_mul', 'tests/test_ops.py::test_neg'];

export function edit(files: WorkspaceFiles, changes: Record<string, string | null>): string {
  const after: WorkspaceFiles = { ...files };
  for (const [p, c] of Object.entries(changes)) {
    if (c === null) delete after[p];
    else after[p] = c;
  }
  return diffWorkspaces(files, after).patch;
}

export const pyGold = edit(pyWorkspace, { 'calc/ops.py': (pyWorkspace['calc/ops.py'] as string).replace('return a - b', 'return a + b') });

export function pyTask(extra: Record<string, unknown> = {}): RepoTask {
  return resolveRepoTask(
    crucibleRepoTaskLine.parse({
      id: 'py-add',
      language: 'python',
      problem_statement: 'add subtracts',
      workspace: { files: pyWorkspace },
      hidden_tests: pyHidden,
      FAIL_TO_PASS: pyF2P,
      PASS_TO_PASS: pyP2P,
      gold_patch: pyGold,
      ...extra,
    }),
    { baseDir: '/' },
  );
}

export const jsWorkspace: WorkspaceFiles = {
  'package.json': '{ "name": "mathlib", "type": "module" }\n',
  'src/math.js': 'export function add(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n',
  'test/mul.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul } from '../src/math.js';\n\ntest('mul', () => {\n  assert.equal(mul(2, 3), 6);\n});\n",
};
export const jsHidden: WorkspaceFiles = {
  'test/add.test.js':
    "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\n\ndescribe('add', () => {\n  test('small', () => {\n    assert.equal(add(1, 2), 3);\n  });\n  test('zero', () => {\n    assert.equal(add(0, 5), 5);\n  });\n});\n",
};
export const jsF2P = ['test/add.test.js::add > small', 'test/add.test.js::add > zero'];
export const jsP2P = ['test/mul.test.js::mul'];
export const jsGold = edit(jsWorkspace, { 'src/math.js': (jsWorkspace['src/math.js'] as string).replace('return a - b', 'return a + b') });

export function jsTask(extra: Record<string, unknown> = {}): RepoTask {
  return resolveRepoTask(
    crucibleRepoTaskLine.parse({
      id: 'js-add',
      language: 'javascript',
      problem_statement: 'add subtracts',
      workspace: { files: jsWorkspace },
      hidden_tests: jsHidden,
      FAIL_TO_PASS: jsF2P,
      PASS_TO_PASS: jsP2P,
      gold_patch: jsGold,
      ...extra,
    }),
    { baseDir: '/' },
  );
}

/** A sandbox manager over the shared test store, with the `repo` environment built. */
export function gradeTestManager(tag: string) {
  const m = testManager(tag);
  ensureBuiltInEnvironment('repo', TEST_STORE);
  return m;
}

/** The JavaScript task in TypeScript (node:test; types stripped by the grader's hooks): an enum, interfaces, tsc-style `.js` imports of `.ts` files. */
export const tsWorkspace: WorkspaceFiles = {
  'package.json': '{ "name": "mathlib-ts", "type": "module" }\n',
  'src/math.ts':
    'export enum Op {\n  Add = "add",\n  Mul = "mul",\n}\n\nexport interface Pair {\n  a: number;\n  b: number;\n}\n\nexport function add(a: number, b: number): number {\n  return a - b;\n}\n\nexport function mul({ a, b }: Pair): number {\n  return a * b;\n}\n',
  'test/mul.test.ts':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul, Op } from '../src/math.js';\n\ntest('mul', () => {\n  assert.equal(mul({ a: 2, b: 3 }), 6);\n  assert.equal(Op.Mul, 'mul');\n});\n",
};
export const tsHidden: WorkspaceFiles = {
  'test/add.test.ts':
    "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.ts';\n\ntype Case = [a: number, b: number, sum: number];\nconst cases: Case[] = [\n  [1, 2, 3],\n  [0, 5, 5],\n];\n\ndescribe('add', () => {\n  test('cases', () => {\n    for (const [a, b, sum] of cases) assert.equal(add(a, b), sum);\n  });\n});\n",
};
export const tsF2P = ['test/add.test.ts::add > cases'];
export const tsP2P = ['test/mul.test.ts::mul'];
export const tsGold = edit(tsWorkspace, { 'src/math.ts': (tsWorkspace['src/math.ts'] as string).replace('return a - b', 'return a + b') });

export function tsTask(): RepoTask {
  return resolveRepoTask(
    crucibleRepoTaskLine.parse({
      id: 'ts-add',
      language: 'typescript', // an alias of javascript
      problem_statement: 'add subtracts',
      workspace: { files: tsWorkspace },
      hidden_tests: tsHidden,
      FAIL_TO_PASS: tsF2P,
      PASS_TO_PASS: tsP2P,
      gold_patch: tsGold,
    }),
    { baseDir: '/' },
  );
}
