import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { diffWorkspaces } from '@/lib/agent/workspace/workspace-diff';
import { TEST_STORE, testDataDir, ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';

// The real `crucible` binary, a real database and real bwrap sandboxes in the `repo` environment.
const root = path.resolve(import.meta.dirname, '..');
let dir: string;
let database: Database;
beforeAll(async () => {
  ensureTestEnvironment();
  dir = testDataDir('cli-tasks-verify');
  database = await freshDatabase();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function crucible(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts/crucible.mjs'), ...args],
      { cwd: root, env: childEnv({ CRUCIBLE_DATA_DIR: dir, CRUCIBLE_ENV_STORE: TEST_STORE, DATABASE_URL: database.url }), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const workspace = {
  'calc.py': 'def add(a, b):\n    return a - b\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
};
const fix = (to: string) => diffWorkspaces(workspace, { ...workspace, 'calc.py': `def add(a, b):\n    return ${to}\n` }).patch;
const line = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  language: 'python',
  problem_statement: 'add() subtracts',
  workspace: { files: workspace },
  FAIL_TO_PASS: ['test_calc.py::test_add'],
  PASS_TO_PASS: ['test_calc.py::test_zero'],
  gold_patch: fix('a + b'),
  ...extra,
});

describe('crucible tasks verify (real binary, database, bwrap)', () => {
  it(
    'grades every gold patch (1) and untouched workspace (0 on FAIL_TO_PASS), naming the failing tests; exit 1 on any failure',
    { timeout: 240_000 },
    async () => {
      const lines = [
        line('sound'),
        line('gold-wrong', { gold_patch: fix('a * b') }), // 2 * 3 != 5: the "fix" does not fix
        line('f2p-passes', { FAIL_TO_PASS: ['test_calc.py::test_zero'], PASS_TO_PASS: [] }), // already passes untouched
      ];
      writeFileSync(path.join(dir, 'suite.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const imported = await crucible(['tasks', 'import', path.join(dir, 'suite.jsonl'), '--format', 'crucible-repo', '--suite', 'verify-me']);
      expect(imported.code, imported.stderr).toBe(0);

      const r = await crucible(['tasks', 'verify', '--suite', 'verify-me', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ suite: 'verify-me', tasks: 3, failed: 2 });
      const byId = Object.fromEntries(out.verdicts.map((v: { id: string }) => [v.id, v]));
      expect(byId.sound).toMatchObject({ ok: true, problems: [], gold: { status: 'graded', reward: 1, failing: [] } });
      expect(byId['gold-wrong'].ok).toBe(false);
      expect(byId['gold-wrong'].gold.failing).toEqual(['test_calc.py::test_add (failed)']);
      expect(byId['gold-wrong'].problems).toEqual([expect.stringMatching(/^gold patch scores 0\.\d+; failing: test_calc\.py::test_add \(failed\)/)]);
      expect(byId['f2p-passes']).toMatchObject({
        ok: false,
        problems: ['untouched workspace already passes FAIL_TO_PASS: test_calc.py::test_zero'],
        untouched: { failToPassPassing: ['test_calc.py::test_zero'] },
      });

      // --only picks tasks; a sound one exits 0 with a readable line
      const one = await crucible(['tasks', 'verify', '--suite', 'verify-me', '--only', 'sound']);
      expect(one.stderr).toBe('');
      expect(one.code).toBe(0);
      expect(one.stdout).toBe('pass  sound\nall 1 task(s) pass\n');
      const text = await crucible(['tasks', 'verify', '--suite', 'verify-me', '--only', 'gold-wrong']);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^FAIL {2}gold-wrong\n {6}gold patch scores 0\.\d+; failing: test_calc\.py::test_add \(failed\)\n1 of 1 task\(s\) failed\n$/);
    },
  );

  it('refuses an unknown suite, an unknown --only id and a missing --suite', async () => {
    const none = await crucible(['tasks', 'verify', '--suite', 'never-imported']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no task suite "never-imported" in the database');
    const unknown = await crucible(['tasks', 'verify', '--suite', 'verify-me', '--only', 'sound,nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--only: no repository task "nope" in suite "verify-me"');
    const missing = await crucible(['tasks', 'verify']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --suite');
  });
});
