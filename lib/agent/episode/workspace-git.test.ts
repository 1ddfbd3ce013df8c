import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine, type RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { gradeRepoTask } from '../grade/grade-repo-task';
import { resolveRepoTask } from '../workspace/resolve-task';
import { ByteTemplateRenderer } from '../render/byte-template';
import { ScriptedPolicy, type ScriptStep } from '../policies/scripted';
import { runAgentEpisode } from './run-episode';

// Real bwrap sandboxes in the `repo` environment (which carries git). A store of this file's own:
// the `repo` environment is rebuilt where an older build lacks git, and the shared test store
// may be in use by other test runs.
const STORE = '/tmp/crucible-workspace-git-test-store';
let manager: SandboxManager;
let cleanup: () => Promise<void>;
beforeAll(() => {
  mkdirSync(STORE, { recursive: true, mode: 0o755 });
  ensureBuiltInEnvironment('default', STORE);
  ensureBuiltInEnvironment('repo', STORE);
  ({ manager, cleanup } = testManager('workspace-git', { storeDir: STORE }));
}, 300_000);
afterAll(async () => cleanup?.());

const task: RepoTask = resolveRepoTask(
  crucibleRepoTaskLine.parse({
    id: 'py-add-git',
    language: 'python',
    problem_statement: 'add(a, b) in calc/ops.py returns the difference; make it return the sum.',
    workspace: {
      files: {
        '.gitignore': 'ignored.txt\n',
        'ignored.txt': 'part of the base all the same\n',
        'calc/__init__.py': '',
        'calc/ops.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
      },
    },
    hidden_tests: { 'tests/test_add.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n' },
    test_command: 'python3 -m pytest -q tests/test_ops.py',
    FAIL_TO_PASS: ['tests/test_add.py::test_add'],
    PASS_TO_PASS: ['tests/test_ops.py::test_zero'],
  }),
  { baseDir: '/tmp' },
);

const grade = (t: RepoTask, patch: string) => gradeRepoTask(manager, t, patch, { limits: episodeSandboxLimits });
const bash = (command: string): ScriptStep => ({ name: 'bash', arguments: { command } });
const run = (steps: ScriptStep[]) =>
  runAgentEpisode({ manager, task, policy: new ScriptedPolicy(steps), renderer: new ByteTemplateRenderer(), limits: episodeSandboxLimits, grade });

describe("git in the agent's sandbox (bwrap, the repo environment)", () => {
  it('a .git with the base commit only: log, status, diff and stash work; .git never reaches the patch or the grade', async () => {
    const r = await run([
      bash(
        'git log --oneline | wc -l; git log --format=%s; git status --porcelain; git rev-list --all --count; git remote; git for-each-ref --format="%(refname)"; git ls-files',
      ),
      { name: 'str_replace', arguments: { path: 'calc/ops.py', old_str: 'a - b', new_str: 'a + b' } },
      bash('git status --porcelain; git diff'),
      bash('git stash -q && git status --porcelain && cat calc/ops.py && git stash pop -q && git diff --stat'),
      // the agent may do as it likes with its .git: nothing of it is part of its work
      bash('echo planted > .git/planted && mkdir -p calc/.git && echo x > calc/.git/config && git add -A && git commit -qm mine && git log --oneline | wc -l'),
      bash('python3 -m pytest -q tests/test_ops.py 2>&1 | tail -1; git status --porcelain'),
      { name: 'submit', arguments: {} },
    ]);
    expect(r.error).toBeUndefined();
    expect(r.end).toBe('submitted');
    const out = r.turns.map((t) => t.toolCalls[0]!.output);
    // one commit, "base", clean, no remotes, one branch, every file of the workspace tracked (the .gitignore'd one too)
    expect(out[0]).toBe(
      ['1', 'base', '1', 'refs/heads/main', '.gitignore', 'calc/__init__.py', 'calc/ops.py', 'ignored.txt', 'tests/test_ops.py', '[exit code 0]'].join('\n'),
    );
    expect(out[2]).toMatch(/^ M calc\/ops\.py\ndiff --git a\/calc\/ops\.py b\/calc\/ops\.py\n[\s\S]*-    return a - b\n\+    return a \+ b\n\[exit code 0\]$/);
    // stash puts the base back, pop brings the change again
    expect(out[3]).toBe('def add(a, b):\n    return a - b\n calc/ops.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n[exit code 0]');
    expect(out[4]).toBe('2\n[exit code 0]');
    // pytest's caches are excluded in .git/info/exclude, as the read-back leaves them out
    expect(out[5]).toMatch(/^1 passed in [\d.]+s\n\[exit code 0\]$/);
    expect(r.patch).toContain('-    return a - b\n+    return a + b');
    expect(r.patch).not.toMatch(/\.git\/|planted/);
    expect(r.grade).toMatchObject({ status: 'graded', reward: 1 });
    expect(manager.stats().busy).toBe(0);
  });

  it('the grader drops .git paths a hand-made patch names, and grades the rest', async () => {
    const patch = [
      'diff --git a/calc/ops.py b/calc/ops.py',
      '--- a/calc/ops.py',
      '+++ b/calc/ops.py',
      '@@ -1,2 +1,2 @@',
      ' def add(a, b):',
      '-    return a - b',
      '+    return a + b',
      'diff --git a/.git/config b/.git/config',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/.git/config',
      '@@ -0,0 +1 @@',
      '+[core]',
      'diff --git a/calc/.git/HEAD b/calc/.git/HEAD',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/calc/.git/HEAD',
      '@@ -0,0 +1 @@',
      '+ref: refs/heads/main',
      '',
    ].join('\n');
    const g = await grade(task, patch);
    expect(g).toMatchObject({ status: 'graded', reward: 1 });
    expect(g.rejectedPaths).toEqual(['.git/config', 'calc/.git/HEAD']);
  });

  it("the prompt names the task's test command and the layout", async () => {
    const r = await run([{ name: 'submit', arguments: {} }]);
    const user = r.messages.find((m) => m.role === 'user')!.content;
    expect(user).toContain(task.problemStatement);
    expect(user).toContain('Run the tests with: python3 -m pytest -q tests/test_ops.py');
    expect(user).toContain('calc/: __init__.py ops.py');
    expect(user).toContain('a git checkout of its base commit');
  });
});
