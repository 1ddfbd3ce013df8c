import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { runCrucible } from '@/test/cli';
import { loadRepoSuite, repoSuiteJsonl } from '@/workers/agent/suite/repo-suite';
import { workspaceSha256 } from '@/workers/agent/workspace/workspace-hash';
import { loadStoredRepoTask } from './repo-task-store';

let database: Database;
let scratch: string;
beforeAll(async () => {
  database = await freshDatabase();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-import-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const count = async (table: string) => (await database.sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]!.n;

/** A real git repository with a buggy module, an existing test, and diffs like SWE-bench's. */
function makeGitRepo(dir: string) {
  const run = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  fs.mkdirSync(path.join(dir, 'mathx'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'tests'));
  fs.writeFileSync(path.join(dir, 'mathx/__init__.py'), 'def clamp(x, lo, hi):\n    return max(lo, x)\n');
  fs.writeFileSync(path.join(dir, 'tests/test_clamp.py'), 'from mathx import clamp\n\n\ndef test_low():\n    assert clamp(-1, 0, 5) == 0\n');
  run('init', '-q');
  run('add', '-A');
  run('commit', '-qm', 'base');
  const base = run('rev-parse', 'HEAD');
  // the gold patch, made by git itself from a real edit, then undone
  fs.writeFileSync(path.join(dir, 'mathx/__init__.py'), 'def clamp(x, lo, hi):\n    return min(hi, max(lo, x))\n');
  const patch = run('diff') + '\n';
  run('checkout', '-q', '--', '.');
  // a later commit the importer must not pick up: the workspace is base_commit's tree
  fs.writeFileSync(path.join(dir, 'NEWER.txt'), 'not in base\n');
  run('add', '-A');
  run('commit', '-qm', 'newer');
  const testPatch = [
    'diff --git a/tests/test_high.py b/tests/test_high.py',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/tests/test_high.py',
    '@@ -0,0 +1,5 @@',
    '+from mathx import clamp',
    '+',
    '+',
    '+def test_high():',
    '+    assert clamp(9, 0, 5) == 5',
    '',
  ].join('\n');
  return { base, patch, testPatch };
}

describe('repository task import', () => {
  it('imports the built-in suite as repository tasks with their workspaces, hidden tests and gold patches', async () => {
    const op = await callerAs(database.db, 'operator');
    const suite = loadRepoSuite();
    const res = await op.tasks.import({ suite: 'repo-suite', format: 'crucible-repo', text: repoSuiteJsonl() });
    expect(res.imported).toBe(suite.length);
    const rows = await op.tasks.list({ suite: 'repo-suite' });
    expect(rows.every((r) => r.kind === 'repo')).toBe(true);
    expect(new Set(rows.map((r) => r.language))).toEqual(new Set(['python', 'javascript']));
    expect(rows.filter((r) => r.split === 'heldout').length).toBe(suite.filter((t) => t.split === 'heldout').length);
    expect(await count('repo_tasks')).toBe(suite.length);

    const line = suite.find((t) => t.id === 'py-inventory-remove-missing')!;
    const stored = await loadStoredRepoTask(database.db, rows.find((r) => r.externalId === line.id)!.id);
    const files = (line.workspace as { files: Record<string, string> }).files;
    expect(stored.workspace).toEqual(files);
    expect(stored.workspaceSha256).toBe(workspaceSha256(files));
    expect(stored.hiddenTests).toEqual(line.hidden_tests);
    expect(stored.failToPass).toEqual(line.FAIL_TO_PASS);
    expect(stored.passToPass).toEqual(line.PASS_TO_PASS);
    expect(stored.goldPatch).toBe(line.gold_patch);
    expect(stored.environment).toBe('repo');
    expect(stored.problemStatement).toBe(line.problem_statement);
    const [difficulty] = await database.sql`select difficulty from repo_tasks where task_id = ${rows.find((r) => r.externalId === line.id)!.id}`;
    expect(difficulty!.difficulty).toBe('easy');

    const [audit] = await database.sql`select details from audit_log where action = 'tasks.import' order by seq desc limit 1`;
    expect(audit!.details).toMatchObject({ name: 'repo-suite', tasks: suite.length, source: 'import:crucible-repo' });
    // the RL loop runs repository tasks as agent episodes: a run on this suite is accepted with its tool set (submit always)
    const run = await op.runs.create({ name: 'on-repos', config: { suite: 'repo-suite', tools: ['bash'], quota: { cpus: 1, memoryMb: 1024 } } });
    expect(run.config.tools).toEqual(['bash', 'submit']);
    expect((await op.runs.suites()).find((x) => x.name === 'repo-suite')).toMatchObject({ tasks: suite.length, repoTasks: suite.length });
  });

  it('converts a SWE-bench line from a local git repository: base commit tree, test_patch as hidden tests, patch as gold', async () => {
    const repo = path.join(scratch, 'mathx');
    fs.mkdirSync(repo);
    const { base, patch, testPatch } = makeGitRepo(repo);
    const line = {
      instance_id: 'mathx__clamp-1',
      repo_path: 'mathx', // relative to the task file's directory
      base_commit: base,
      problem_statement: 'clamp() ignores the upper bound',
      patch,
      test_patch: testPatch,
      FAIL_TO_PASS: JSON.stringify(['tests/test_high.py::test_high']), // as SWE-bench publishes them: a JSON string
      PASS_TO_PASS: ['tests/test_clamp.py::test_low'],
      version: '1.0', // extra SWE-bench fields are ignored
    };
    const op = await callerAs(database.db, 'operator');
    const res = await op.tasks.import({ suite: 'swe', format: 'swebench', text: JSON.stringify(line) + '\n', baseDir: scratch });
    expect(res.imported).toBe(1);
    const [row] = await op.tasks.list({ suite: 'swe' });
    expect(row).toMatchObject({ externalId: 'mathx__clamp-1', kind: 'repo', language: 'python', split: 'train' });
    const stored = await loadStoredRepoTask(database.db, row!.id);
    expect(Object.keys(stored.workspace).sort()).toEqual(['mathx/__init__.py', 'tests/test_clamp.py']);
    expect(stored.workspace['mathx/__init__.py']).toBe('def clamp(x, lo, hi):\n    return max(lo, x)\n');
    expect(Object.keys(stored.hiddenTests)).toEqual(['tests/test_high.py']);
    expect(stored.hiddenTests['tests/test_high.py']).toContain('assert clamp(9, 0, 5) == 5');
    expect(stored.failToPass).toEqual(['tests/test_high.py::test_high']);
    expect(stored.passToPass).toEqual(['tests/test_clamp.py::test_low']);
    expect(stored.goldPatch).toBe(patch);
    expect(stored.workspaceSha256).toBe(workspaceSha256(stored.workspace));
  });

  it('reports every bad line by number with a readable reason and imports nothing', async () => {
    const repo = path.join(scratch, 'bad-lines');
    fs.mkdirSync(repo);
    const { base, patch, testPatch } = makeGitRepo(repo);
    const notGit = path.join(scratch, 'plain-dir');
    fs.mkdirSync(notGit);
    const good = {
      instance_id: 'ok-1',
      repo_path: repo,
      base_commit: base,
      problem_statement: 'clamp() ignores the upper bound',
      patch,
      test_patch: testPatch,
      FAIL_TO_PASS: ['tests/test_high.py::test_high'],
      PASS_TO_PASS: [],
    };
    const badHunk = testPatch
      .replace('@@ -0,0 +1,5 @@', '@@ -1,2 +1,5 @@')
      .replace('--- /dev/null', '--- a/tests/test_high.py')
      .replace('new file mode 100644\n', '');
    const lines = [
      JSON.stringify(good),
      '{"instance_id": "broken',
      JSON.stringify({ ...good, instance_id: 'not-git', repo_path: notGit }),
      JSON.stringify({ ...good, instance_id: 'no-commit', base_commit: 'deadbeef'.repeat(5) }),
      JSON.stringify({ ...good, instance_id: 'bad-test-patch', test_patch: badHunk }),
      JSON.stringify({ ...good, instance_id: 'no-f2p', FAIL_TO_PASS: [] }),
      '',
      JSON.stringify({ ...good, instance_id: 'bad-gold', patch: patch.replace('return max(lo, x)', 'return something_else') }),
      JSON.stringify(good),
    ];
    const before = { tasks: await count('tasks'), workspaces: await count('repo_workspaces'), repo: await count('repo_tasks') };
    const op = await callerAs(database.db, 'operator');
    const err = await op.tasks.import({ suite: 'swe-bad', format: 'swebench', text: lines.join('\n') }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(/7 bad line\(s\); nothing was imported/);
    expect(msg).not.toMatch(/line 1:/);
    expect(msg).toMatch(/line 2: not valid JSON/);
    expect(msg).toMatch(/line 3: repo_path .*plain-dir is not a git repository/);
    expect(msg).toMatch(/line 4: base_commit deadbeef\w+ does not exist/);
    expect(msg).toMatch(/line 5: .*test_patch does not apply/);
    expect(msg).toMatch(/line 6: FAIL_TO_PASS.*at least one test id/);
    expect(msg).toMatch(/line 8: the gold patch does not apply/);
    expect(msg).toMatch(/line 9: duplicate task id "ok-1" \(first on line 1\)/);
    const [{ n } = { n: 0 }] = await database.sql`select count(*)::int as n from task_suites where name = 'swe-bad'`;
    expect(n).toBe(0);
    expect({ tasks: await count('tasks'), workspaces: await count('repo_workspaces'), repo: await count('repo_tasks') }).toEqual(before);
  });

  it('refuses crucible-repo lines with unsafe workspace paths or a gold patch that does not apply', async () => {
    const op = await callerAs(database.db, 'operator');
    const base = { id: 't', language: 'javascript', problem_statement: 'x', FAIL_TO_PASS: ['test/a.test.js::a'] };
    const text = [
      JSON.stringify({ ...base, workspace: { files: { '../escape.js': '1' } } }),
      JSON.stringify({
        ...base,
        id: 't2',
        workspace: { files: { 'a.js': 'one\n' } },
        gold_patch: 'diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1 @@\n-two\n+three\n',
      }),
      JSON.stringify({ ...base, id: 't3', workspace: { dir: 'no/such/dir' } }),
    ].join('\n');
    const msg = await op.tasks
      .import({ suite: 'repo-bad', format: 'crucible-repo', text, baseDir: scratch })
      .then(() => '')
      .catch((e: Error) => e.message);
    expect(msg).toMatch(/line 1: workspace\.files\.\.\.\/escape\.js: Invalid key/);
    expect(msg).toMatch(/line 2: the gold patch does not apply/);
    expect(msg).toMatch(/line 3: .*no\/such\/dir/);
  });

  it('the real CLI imports the suite file and a SWE-bench file whose repo_path is relative to the file', { timeout: 120_000 }, async () => {
    const dir = path.join(scratch, 'cli');
    fs.mkdirSync(path.join(dir, 'repos', 'mathx'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'suite.jsonl'), repoSuiteJsonl());
    const { base, patch, testPatch } = makeGitRepo(path.join(dir, 'repos', 'mathx'));
    const swe = {
      instance_id: 'cli-1',
      repo_path: 'repos/mathx',
      base_commit: base,
      problem_statement: 'p',
      patch,
      test_patch: testPatch,
      FAIL_TO_PASS: ['tests/test_high.py::test_high'],
    };
    fs.writeFileSync(path.join(dir, 'cli-swe.jsonl'), JSON.stringify(swe) + '\n');
    const env = { DATABASE_URL: database.url };
    const a = await runCrucible(['tasks', 'import', path.join(dir, 'suite.jsonl'), '--format', 'crucible-repo', '--suite', 'cli-repo', '--json'], env);
    expect(a.stderr).toBe('');
    expect(JSON.parse(a.stdout)).toMatchObject({ suite: 'cli-repo', imported: loadRepoSuite().length });
    const b = await runCrucible(['tasks', 'import', path.join(dir, 'cli-swe.jsonl'), '--format', 'swebench', '--json'], env); // --suite defaults to the file name
    expect(b.stderr).toBe('');
    expect(JSON.parse(b.stdout)).toMatchObject({ suite: 'cli-swe', imported: 1 });
    const bad = await runCrucible(['tasks', 'import', path.join(dir, 'cli-swe.jsonl'), '--format', 'nope'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--format must be one of crucible, humaneval, crucible-repo, swebench/);
    const list = await runCrucible(['tasks', 'list', '--suite', 'cli-repo', '--split', 'heldout'], env);
    expect(list.stdout).toMatch(/py-roman-subtractive\s+repo\s+python\s+heldout/);
  });

  it('replacing a suite of repository tasks replaces their details too', async () => {
    const op = await callerAs(database.db, 'operator');
    const one = loadRepoSuite().slice(0, 1);
    const text = one.map((t) => JSON.stringify(t)).join('\n');
    const inSuite = async () =>
      (
        await database.sql`select count(*)::int as n from repo_tasks r join tasks t on t.id = r.task_id join task_suites s on s.id = t.suite_id where s.name = 'repo-replace'`
      )[0]!.n;
    await op.tasks.import({ suite: 'repo-replace', format: 'crucible-repo', text });
    expect(await inSuite()).toBe(1);
    const before = await count('repo_tasks');
    await op.tasks.import({ suite: 'repo-replace', format: 'crucible-repo', text, replace: true });
    expect(await inSuite()).toBe(1);
    expect(await count('repo_tasks')).toBe(before);
  });
});
