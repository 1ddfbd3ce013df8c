import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { repoTasks, repoWorkspaces, tasks } from '@/db/schema';
import { eq } from 'drizzle-orm';
import { taskImportRoute } from '@/server/http/task-import-route';
import { createToken } from '@/server/tokens/service';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { runCrucible } from '@/test/cli';
import { loadRepoSuite, repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { workspaceSha256 } from '@/lib/agent/workspace/workspace-hash';
import { loadStoredRepoTask } from './repo-task-store';
import { importPathPolicy } from '@/server/paths/import-path-policy';
import { importTasks } from './service';

// The server's import root (CRUCIBLE_IMPORT_ROOTS) is this file's scratch directory: set before
// any module reads the settings. `outside` is a sibling directory no import may read over the API.
const { scratch, outside } = await vi.hoisted(async () => {
  const [{ mkdtempSync, realpathSync }, { tmpdir }, { join }] = await Promise.all([import('node:fs'), import('node:os'), import('node:path')]);
  const dirs = { scratch: realpathSync(mkdtempSync(join(tmpdir(), 'repo-import-'))), outside: realpathSync(mkdtempSync(join(tmpdir(), 'repo-outside-'))) };
  vi.stubEnv('CRUCIBLE_IMPORT_ROOTS', dirs.scratch);
  return dirs;
});

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

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

  it('a stored workspace, hidden-test path or environment name rewritten by the app role is refused on the way out', async () => {
    const op = await callerAs(database.db, 'operator');
    const [row] = await op.tasks.list({ suite: 'swe' });
    const [repo] = await database.db.select().from(repoTasks).where(eq(repoTasks.taskId, row!.id));
    const [ws] = await database.db.select().from(repoWorkspaces).where(eq(repoWorkspaces.sha256, repo!.workspaceSha256));
    // freshDatabase connects as the app role every worker host holds
    await database.db
      .update(repoWorkspaces)
      .set({ files: { ...ws!.files, '../../etc/cron.d/x': '* * * * * root id\n' } })
      .where(eq(repoWorkspaces.sha256, ws!.sha256));
    await expect(loadStoredRepoTask(database.db, row!.id)).rejects.toThrow(/its stored workspace has an invalid file path \(\.\.\/\.\.\/etc\/cron\.d\/x/);
    await database.db.update(repoWorkspaces).set({ files: ws!.files }).where(eq(repoWorkspaces.sha256, ws!.sha256));
    await database.db
      .update(repoTasks)
      .set({ hiddenTests: { '/abs/test.py': 'x' } })
      .where(eq(repoTasks.taskId, row!.id));
    await expect(loadStoredRepoTask(database.db, row!.id)).rejects.toThrow(/its stored hidden tests has an invalid file path/);
    await database.db.update(repoTasks).set({ hiddenTests: repo!.hiddenTests }).where(eq(repoTasks.taskId, row!.id));
    const [{ environmentName }] = (await database.db.select({ environmentName: tasks.environmentName }).from(tasks).where(eq(tasks.id, row!.id))) as [
      { environmentName: string | null },
    ];
    await database.db.update(tasks).set({ environmentName: '../../env' }).where(eq(tasks.id, row!.id));
    await expect(loadStoredRepoTask(database.db, row!.id)).rejects.toThrow(/its stored environment name is invalid/);
    await database.db.update(tasks).set({ environmentName }).where(eq(tasks.id, row!.id));
    expect((await loadStoredRepoTask(database.db, row!.id)).workspaceSha256).toBe(repo!.workspaceSha256);
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
        workspace: { files: { 'a.js': 'one\n', 'test/a.test.js': '' } },
        gold_patch: 'diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1 @@\n-two\n+three\n',
      }),
      JSON.stringify({ ...base, id: 't3', workspace: { dir: 'no/such/dir' } }),
      // test ids must name a file of the workspace or the hidden tests
      JSON.stringify({
        ...base,
        id: 't4',
        workspace: { files: { 'a.js': '', 'test/a.test.js': '' } },
        hidden_tests: { 'test/b.test.js': '' },
        FAIL_TO_PASS: ['test/a.test.js::a', 'test/b.test.js::b', 'test/gone.test.js::c'],
        PASS_TO_PASS: ['tests/a.test.js::a'],
      }),
    ].join('\n');
    const msg = await op.tasks
      .import({ suite: 'repo-bad', format: 'crucible-repo', text, baseDir: scratch })
      .then(() => '')
      .catch((e: Error) => e.message);
    expect(msg).toMatch(/line 1: workspace\.files\.\.\.\/escape\.js: Invalid key/);
    expect(msg).toMatch(/line 2: the gold patch does not apply/);
    expect(msg).toMatch(/line 3: .*no\/such\/dir/);
    expect(msg).toMatch(
      /line 4: test id\(s\) naming a file that is neither in the workspace nor in the hidden tests: test\/gone\.test\.js::c \(FAIL_TO_PASS\), tests\/a\.test\.js::a \(PASS_TO_PASS\);/,
    );
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

  it(
    'SWE-bench lines carry setup, split, difficulty and env; git symlinks are left out and reported, unless a named test file is one',
    { timeout: 60_000 },
    async () => {
      const repo = path.join(scratch, 'links');
      fs.mkdirSync(repo);
      const { patch, testPatch } = makeGitRepo(repo);
      fs.mkdirSync(path.join(repo, 'docs'));
      fs.symlinkSync('../mathx/__init__.py', path.join(repo, 'docs', 'alias.py'));
      fs.symlinkSync('test_clamp.py', path.join(repo, 'tests', 'test_link.py'));
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
      git('add', '-A');
      git('commit', '-qm', 'links');
      const base = git('rev-parse', 'HEAD');
      const good = {
        instance_id: 'links-ok',
        repo_path: repo,
        base_commit: base,
        problem_statement: 'clamp() ignores the upper bound',
        patch,
        test_patch: testPatch,
        FAIL_TO_PASS: ['tests/test_high.py::test_high'],
        PASS_TO_PASS: ['tests/test_clamp.py::test_low'],
        setup: 'python3 -c "print(1)"',
        split: 'heldout',
        difficulty: 'hard',
        env: 'default',
      };
      const op = await callerAs(database.db, 'operator');
      const bad = await op.tasks
        .import({
          suite: 'links',
          format: 'swebench',
          text: [good, { ...good, instance_id: 'links-bad', PASS_TO_PASS: ['tests/test_link.py::test_low'] }].map((l) => JSON.stringify(l)).join('\n'),
        })
        .then(() => '')
        .catch((e: Error) => e.message);
      expect(bad).toMatch(/^1 bad line/);
      expect(bad).toMatch(/line 2: tests\/test_link\.py is a symbolic link in the repository and a test file this task names/);
      const res = await op.tasks.import({ suite: 'links', format: 'swebench', text: JSON.stringify(good) });
      expect(res.skippedLinks).toEqual([{ task: 'links-ok', paths: ['docs/alias.py', 'tests/test_link.py'] }]);
      const [row] = await op.tasks.list({ suite: 'links' });
      expect(row).toMatchObject({ split: 'heldout', environmentName: 'default' });
      const stored = await loadStoredRepoTask(database.db, row!.id);
      expect(stored.setup).toBe('python3 -c "print(1)"');
      expect(stored.workspace['docs/alias.py']).toBeUndefined();
      expect(stored.workspace['tests/test_clamp.py']).toBeDefined();
      const [d] = await database.sql`select difficulty from repo_tasks where task_id = ${row!.id}`;
      expect(d!.difficulty).toBe('hard');
      // the CLI lists the links it left out
      fs.writeFileSync(path.join(scratch, 'links.jsonl'), JSON.stringify(good) + '\n');
      const cli = await runCrucible(['tasks', 'import', path.join(scratch, 'links.jsonl'), '--format', 'swebench', '--suite', 'links-cli'], {
        DATABASE_URL: database.url,
      });
      expect(cli.stderr).toBe('');
      expect(cli.stdout).toBe(
        'imported 1 task(s) into suite "links-cli"\nsymbolic links left out of the workspaces (workspaces hold regular files only):\n  links-ok: docs/alias.py, tests/test_link.py\n',
      );
    },
  );

  describe('import paths: only under CRUCIBLE_IMPORT_ROOTS (plus, for the in-process CLI, the task file directory)', () => {
    let outsideRepo: ReturnType<typeof makeGitRepo> & { dir: string };
    beforeAll(() => {
      const dir = path.join(outside, 'secret-repo');
      fs.mkdirSync(dir);
      outsideRepo = { ...makeGitRepo(dir), dir };
    });
    const sweLine = (id: string, repoPath: string, r = outsideRepo) => ({
      instance_id: id,
      repo_path: repoPath,
      base_commit: r.base,
      problem_statement: 'clamp() ignores the upper bound',
      patch: r.patch,
      test_patch: r.testPatch,
      FAIL_TO_PASS: ['tests/test_high.py::test_high'],
    });
    const repoLine = (id: string, workspace: unknown) => ({
      id,
      language: 'python',
      problem_statement: 'x',
      workspace,
      FAIL_TO_PASS: ['tests/test_x.py::test_x'],
    });

    it('over the API a path outside the roots is refused, through symbolic links, "..", a .git file or alternates too', { timeout: 60_000 }, async () => {
      // inside the root, but each reaches outside it
      fs.symlinkSync(outsideRepo.dir, path.join(scratch, 'link-to-secret'));
      fs.mkdirSync(path.join(scratch, 'gitfile'));
      fs.writeFileSync(path.join(scratch, 'gitfile', '.git'), `gitdir: ${path.join(outsideRepo.dir, '.git')}\n`);
      execFileSync('git', ['clone', '-q', '--shared', outsideRepo.dir, path.join(scratch, 'shared-clone')]);
      const inside = path.join(scratch, 'inside-repo');
      fs.mkdirSync(inside);
      const insideRepo = { ...makeGitRepo(inside), dir: inside };
      const lines = [
        sweLine('abs-outside', outsideRepo.dir),
        repoLine('etc', { dir: '/etc' }),
        sweLine('dotdot', `${scratch}/../${path.basename(outside)}/secret-repo`),
        sweLine('symlink', path.join(scratch, 'link-to-secret')),
        repoLine('tar-missing', { tarball: path.join(outside, 'no-such.tar') }),
        sweLine('git-file', path.join(scratch, 'gitfile')),
        sweLine('alternates', path.join(scratch, 'shared-clone')),
        sweLine('fine', insideRepo.dir, insideRepo),
      ];
      const op = await callerAs(database.db, 'operator');
      const text = (format: string) => lines.map((l) => ('instance_id' in l === (format === 'swebench') ? JSON.stringify(l) : '')).join('\n');
      const swe = await op.tasks
        .import({ suite: 'paths-swe', format: 'swebench', text: text('swebench') })
        .then(() => '')
        .catch((e: Error) => e.message);
      const root = `CRUCIBLE_IMPORT_ROOTS \\(${scratch}\\)`;
      expect(swe).toMatch(/5 bad line\(s\)/);
      expect(swe).toMatch(new RegExp(`line 1: repo_path ${outsideRepo.dir} is outside the directories imports may read: ${root}`));
      expect(swe).toMatch(new RegExp(`line 3: repo_path \\S+/\\.\\./\\S+ \\(resolves to ${outsideRepo.dir}\\) is outside`));
      expect(swe).toMatch(new RegExp(`line 4: repo_path \\S+link-to-secret \\(resolves to ${outsideRepo.dir}\\) is outside`));
      expect(swe).toMatch(new RegExp(`line 6: repo_path's git directory ${outsideRepo.dir}/\\.git is outside`));
      expect(swe).toMatch(new RegExp(`line 7: repo_path's alternate object directory ${outsideRepo.dir}/\\.git/objects is outside`));
      expect(swe).not.toMatch(/line 8:/);
      const repo = await op.tasks
        .import({ suite: 'paths-repo', format: 'crucible-repo', text: text('crucible-repo'), baseDir: scratch })
        .then(() => '')
        .catch((e: Error) => e.message);
      expect(repo).toMatch(new RegExp(`line 2: workspace.dir /etc is outside the directories imports may read: ${root}`));
      // a path that does not exist gets the same answer as one that does: the refusal does not probe the disk
      expect(repo).toMatch(new RegExp(`line 5: workspace.tarball ${outside}/no-such.tar is outside`));
      const [{ n } = { n: 0 }] = await database.sql`select count(*)::int as n from task_suites where name like 'paths-%'`;
      expect(n).toBe(0);
      // the line inside the root imports
      const ok = await op.tasks.import({ suite: 'paths-ok', format: 'swebench', text: JSON.stringify(sweLine('fine', insideRepo.dir, insideRepo)) });
      expect(ok.imported).toBe(1);
    });

    it('with no roots set, imports over the API refuse local-path workspaces naming the setting; inline files still import', async () => {
      const api = importPathPolicy([], { local: false, baseDir: scratch });
      const msg = await importTasks(database.db, { text: JSON.stringify(sweLine('x', outsideRepo.dir)), format: 'swebench', suite: 'no-roots' }, 'test', {
        paths: api,
      })
        .then(() => '')
        .catch((e: Error) => e.message);
      expect(msg).toMatch(/line 1: repo_path names a path on the server .*CRUCIBLE_IMPORT_ROOTS, which is not set: set it on the server/);
      const inline = repoLine('inline', { files: { 'tests/test_x.py': 'def test_x():\n    assert False\n' } });
      expect(
        (await importTasks(database.db, { text: JSON.stringify(inline), format: 'crucible-repo', suite: 'no-roots' }, 'test', { paths: api })).imported,
      ).toBe(1);
    });

    it('the HTTP upload route reads local paths only under the roots (a relative path does not start at the server directory)', async () => {
      await createUser(database.db, { username: 'uploader', password: 'operator-password', role: 'operator' }, 'test');
      const { token } = await createToken(database.db, 'uploader', 'cli', 'test');
      const upload = taskImportRoute(async () => database.db, parseSettings({}));
      const inside = path.join(scratch, 'upload-repo');
      fs.mkdirSync(inside);
      const insideRepo = { ...makeGitRepo(inside), dir: inside };
      const post = (suite: string, line: unknown) =>
        upload(
          new Request(`http://localhost/api/tasks/import?suite=${suite}&format=swebench`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
            body: JSON.stringify(line),
          }),
        );
      const bad = await post('up-bad', sweLine('x', outsideRepo.dir));
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
        /line 1: repo_path .* is outside the directories imports may read: CRUCIBLE_IMPORT_ROOTS/,
      );
      const rel = await post('up-rel', sweLine('x', 'upload-repo', insideRepo));
      expect(rel.status).toBe(400);
      const good = await post('up-good', sweLine('x', inside, insideRepo));
      expect(await good.json()).toMatchObject({ imported: 1 });
      // symbolic links left out of the workspace are listed in the response, as the CLI lists them
      fs.symlinkSync('../mathx/__init__.py', path.join(inside, 'tests', 'alias.py'));
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', ...args], { cwd: inside, encoding: 'utf8' }).trim();
      git('add', '-A');
      git('commit', '-qm', 'link');
      const linked = await post('up-links', sweLine('y', inside, { ...insideRepo, base: git('rev-parse', 'HEAD') }));
      expect(await linked.json()).toMatchObject({ imported: 1, skippedLinks: [{ task: 'y', paths: ['tests/alias.py'] }] });
    });

    it(
      'the real CLI reads its task file directory; elsewhere only under CRUCIBLE_IMPORT_ROOTS; workspace caps are settings',
      { timeout: 120_000 },
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-import-cli-'));
        try {
          fs.mkdirSync(path.join(dir, 'repos', 'mine'), { recursive: true });
          const mine = { ...makeGitRepo(path.join(dir, 'repos', 'mine')), dir: '' };
          fs.writeFileSync(path.join(dir, 'mine.jsonl'), JSON.stringify(sweLine('mine', 'repos/mine', mine)) + '\n');
          fs.writeFileSync(path.join(dir, 'theirs.jsonl'), JSON.stringify(sweLine('theirs', outsideRepo.dir)) + '\n');
          const env = { DATABASE_URL: database.url, CRUCIBLE_IMPORT_ROOTS: '' };
          const a = await runCrucible(['tasks', 'import', path.join(dir, 'mine.jsonl'), '--format', 'swebench', '--json'], env);
          expect(a.stderr).toBe('');
          expect(JSON.parse(a.stdout)).toMatchObject({ suite: 'mine', imported: 1 });
          // the workspace caps are settings: the same file over a 1-file cap is refused
          const capped = await runCrucible(['tasks', 'import', path.join(dir, 'mine.jsonl'), '--format', 'swebench', '--suite', 'capped'], {
            ...env,
            CRUCIBLE_WORKSPACE_MAX_FILES: '1',
          });
          expect(capped.stderr).toMatch(/line 1: .*has more than 1 files \(the workspace cap\)/);
          const b = await runCrucible(['tasks', 'import', path.join(dir, 'theirs.jsonl'), '--format', 'swebench'], env);
          expect(b.code).not.toBe(0);
          expect(b.stderr).toMatch(/line 1: repo_path \S+ is outside the directories imports may read: the task file's directory and CRUCIBLE_IMPORT_ROOTS/);
          const c = await runCrucible(['tasks', 'import', path.join(dir, 'theirs.jsonl'), '--format', 'swebench', '--json'], {
            ...env,
            CRUCIBLE_IMPORT_ROOTS: outside,
          });
          expect(c.stderr).toBe('');
          expect(JSON.parse(c.stdout)).toMatchObject({ suite: 'theirs', imported: 1 });
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );
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
