import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '@/db/client';
import { callerAs } from '@/test/callers';
import { runCrucible } from '@/test/cli';
import { freshDatabase } from '@/test/database';
import { gradeTestManager } from '@/lib/agent/grade/grade-fixtures';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { workspaceSha256 } from '@/lib/agent/workspace/workspace-hash';
import { loadStoredRepoTask } from './repo-task-store';
import { mirrorSource } from './repo-mirrors';
import { importTasks } from './service';

// The server's mirror directory (CRUCIBLE_REPO_MIRRORS) is `mirrors`, set before any module reads
// the settings; `outside` is a sibling no mirror may reach into; `work` holds sources and task files.
const { tmp, mirrors, outside, work } = await vi.hoisted(async () => {
  const [{ mkdtempSync, mkdirSync, realpathSync }, { tmpdir }, { join }] = await Promise.all([import('node:fs'), import('node:os'), import('node:path')]);
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'repo-mirrors-')));
  const dirs = { tmp, mirrors: join(tmp, 'mirrors'), outside: join(tmp, 'outside'), work: join(tmp, 'work') };
  for (const d of [dirs.mirrors, dirs.outside, dirs.work]) mkdirSync(d);
  vi.stubEnv('CRUCIBLE_REPO_MIRRORS', dirs.mirrors);
  vi.stubEnv('CRUCIBLE_IMPORT_ROOTS', '');
  return dirs;
});

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** An upstream fix from the real-code corpus (boltons), as the repository SWE-bench would name. */
const CORPUS = path.resolve(import.meta.dirname, '../../tasks/real-corpus/boltons-singularize-ss');
const corpus = JSON.parse(fs.readFileSync(path.join(CORPUS, 'task.json'), 'utf8')) as {
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  problem_statement: string;
};

function filesUnder(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, filesUnder(path.join(dir, e.name), rel));
    else out[rel] = fs.readFileSync(path.join(dir, e.name), 'utf8');
  }
  return out;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

/**
 * The upstream repository at its base commit, a later commit SWE-bench would install the
 * environment from, and the test_patch as git writes it (the corpus's hidden test file over the
 * base one); `patch` is the upstream gold patch.
 */
function makeUpstream(dir: string) {
  fs.cpSync(path.join(CORPUS, 'workspace'), dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  const base = git(dir, 'rev-parse', 'HEAD');
  fs.cpSync(path.join(CORPUS, 'hidden_tests'), dir, { recursive: true });
  const testPatch = git(dir, 'diff') + '\n';
  git(dir, 'checkout', '-q', '--', '.');
  fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), 'a later release\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'release');
  const envCommit = git(dir, 'rev-parse', 'HEAD');
  return { dir, base, envCommit, testPatch, patch: fs.readFileSync(path.join(CORPUS, 'gold.patch'), 'utf8') };
}
let upstream: ReturnType<typeof makeUpstream>;
beforeAll(() => {
  upstream = makeUpstream(path.join(work, 'boltons'));
});

/** A line exactly as SWE-bench publishes it: `repo` and no path; test lists as JSON-encoded strings; Verified's difficulty. */
const verbatim = (instance: string, repo = 'mahmoud/boltons', extra: Record<string, unknown> = {}) => ({
  repo,
  instance_id: instance,
  base_commit: upstream.base,
  patch: upstream.patch,
  test_patch: upstream.testPatch,
  problem_statement: corpus.problem_statement,
  hints_text: '',
  created_at: '2026-07-03T09:12:44Z',
  version: '25.0',
  FAIL_TO_PASS: JSON.stringify(corpus.FAIL_TO_PASS),
  PASS_TO_PASS: JSON.stringify(corpus.PASS_TO_PASS),
  environment_setup_commit: upstream.envCommit,
  difficulty: '<15 min fix',
  ...extra,
});
const jsonl = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const failure = (p: Promise<unknown>) => p.then(() => '').catch((e: Error) => e.message);

describe('SWE-bench lines naming repo "owner/name", read from a directory of mirrors', () => {
  it('over the API: a bare mirror under CRUCIBLE_REPO_MIRRORS; the stored task is the base commit, test_patch hidden, patch gold', async () => {
    execFileSync('git', ['clone', '-q', '--bare', upstream.dir, path.join(mirrors, 'mahmoud__boltons.git')]);
    const op = await callerAs(database.db, 'operator');
    const res = await op.tasks.import({ suite: 'swe-verbatim', format: 'swebench', text: jsonl(verbatim('mahmoud__boltons-1')) });
    expect(res.imported).toBe(1);
    const [row] = await op.tasks.list({ suite: 'swe-verbatim' });
    expect(row).toMatchObject({ externalId: 'mahmoud__boltons-1', kind: 'repo', language: 'python' });
    const stored = await loadStoredRepoTask(database.db, row!.id);
    const base = filesUnder(path.join(CORPUS, 'workspace'));
    expect(stored.workspace).toEqual(base); // base_commit's tree: not the later CHANGELOG.md
    expect(stored.workspaceSha256).toBe(workspaceSha256(base));
    expect(stored.hiddenTests).toEqual(filesUnder(path.join(CORPUS, 'hidden_tests')));
    expect(stored.failToPass).toEqual(corpus.FAIL_TO_PASS);
    expect(stored.passToPass).toEqual(corpus.PASS_TO_PASS);
    expect(stored.goldPatch).toBe(upstream.patch);
    const [d] = await database.sql`select difficulty from repo_tasks where task_id = ${row!.id}`;
    expect(d!.difficulty).toBe('easy'); // "<15 min fix"
  });

  it('the stored task grades through the real grader: gold patch 1, untouched base commit 0', { timeout: 240_000 }, async () => {
    const { manager, cleanup } = gradeTestManager('repo-mirrors-grade');
    try {
      const [row] = await (await callerAs(database.db, 'viewer')).tasks.list({ suite: 'swe-verbatim' });
      const task = await loadStoredRepoTask(database.db, row!.id);
      const gold = await gradeRepoTask(manager, task, task.goldPatch!);
      expect(gold, JSON.stringify(gold.tests.filter((t) => !t.passed))).toMatchObject({ status: 'graded', reward: 1, patchApplied: true });
      const untouched = await gradeRepoTask(manager, task, '');
      expect(untouched).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
    } finally {
      await cleanup();
    }
  });

  it('tries owner__name.git, then owner__name, then owner/name; bare mirrors and clones alike, none of them modified', async () => {
    const dir = path.join(tmp, 'order');
    fs.mkdirSync(path.join(dir, 'mahmoud'), { recursive: true });
    // owner__name: a clone of some other repository, which the .git mirror shadows
    const other = path.join(work, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'x.txt'), 'x\n');
    git(other, 'init', '-q');
    git(other, 'add', '-A');
    git(other, 'commit', '-qm', 'other');
    git(dir, 'clone', '-q', other, path.join(dir, 'mahmoud__boltons'));
    git(dir, 'clone', '-q', '--bare', upstream.dir, path.join(dir, 'mahmoud__boltons.git'));
    git(dir, 'clone', '-q', upstream.dir, path.join(dir, 'mahmoud', 'boltons'));
    const importFrom = (suite: string) =>
      importTasks(database.db, { text: jsonl(verbatim('order-1')), format: 'swebench', suite }, 'test', { mirrors: { dir } });
    expect((await importFrom('order-a')).imported).toBe(1);
    // without the .git mirror, owner__name is next: it lacks the commit, and the error names it
    fs.renameSync(path.join(dir, 'mahmoud__boltons.git'), path.join(tmp, 'parked.git'));
    expect(await failure(importFrom('order-b'))).toMatch(
      new RegExp(
        `line 1: instance order-1: base_commit ${upstream.base} does not exist in the mirror of mahmoud/boltons at ${dir}/mahmoud__boltons \\(fetch it`,
      ),
    );
    // then owner/name, a working clone: read from its object store, its checkout untouched
    fs.rmSync(path.join(dir, 'mahmoud__boltons'), { recursive: true });
    const clone = path.join(dir, 'mahmoud', 'boltons');
    const before = { head: git(clone, 'rev-parse', 'HEAD'), status: git(clone, 'status', '--porcelain'), files: filesUnder(clone) };
    expect((await importFrom('order-c')).imported).toBe(1);
    expect({ head: git(clone, 'rev-parse', 'HEAD'), status: git(clone, 'status', '--porcelain'), files: filesUnder(clone) }).toEqual(before);
    expect(before.files['CHANGELOG.md']).toBeDefined(); // the clone is checked out at the later commit; the task is base_commit's
    const [row] = await (await callerAs(database.db, 'viewer')).tasks.list({ suite: 'order-c' });
    expect((await loadStoredRepoTask(database.db, row!.id)).workspace['CHANGELOG.md']).toBeUndefined();
  });

  it('a missing mirror, a missing base or environment commit, or no mirror directory: errors name the instance, the repo and every path', async () => {
    const op = await callerAs(database.db, 'operator');
    fs.mkdirSync(path.join(mirrors, 'psf__requests')); // exists, but not a git repository
    const msg = await failure(
      op.tasks.import({
        suite: 'swe-missing',
        format: 'swebench',
        text: jsonl(
          verbatim('psf__requests-863', 'psf/requests'),
          verbatim('no-base', 'mahmoud/boltons', { base_commit: 'deadbeef'.repeat(5) }),
          verbatim('no-env', 'mahmoud/boltons', { environment_setup_commit: 'feedface'.repeat(5) }),
          verbatim('bad-repo', '../etc'),
          { ...verbatim('no-repo'), repo: undefined },
          verbatim('fine'),
        ),
      }),
    );
    expect(msg).toMatch(/^5 bad line\(s\); nothing was imported/);
    expect(msg).toContain(
      `line 1: instance psf__requests-863: no mirror of psf/requests in ${mirrors}; looked at ${mirrors}/psf__requests.git (absent), ${mirrors}/psf__requests (not a git repository: neither a bare mirror nor a clone), ${mirrors}/psf/requests (absent); clone it there, e.g. git clone --mirror https://github.com/psf/requests.git ${mirrors}/psf__requests.git`,
    );
    expect(msg).toMatch(
      new RegExp(`line 2: instance no-base: base_commit deadbeef\\w+ does not exist in the mirror of mahmoud/boltons at ${mirrors}/mahmoud__boltons\\.git`),
    );
    expect(msg).toMatch(new RegExp(`line 3: instance no-env: environment_setup_commit feedface\\w+ does not exist in the mirror of mahmoud/boltons`));
    expect(msg).toMatch(/line 4: repo: repo segments cannot be "\." or "\.\."/);
    expect(msg).toMatch(
      /line 5: repo: a SWE-bench line names its repository: "repo" \("owner\/name", read from --repos DIR or CRUCIBLE_REPO_MIRRORS\) or "repo_path"/,
    );
    expect(msg).not.toMatch(/line 6:/);

    // no mirror directory at all (the service without one): the line says how to give one
    const none = await failure(importTasks(database.db, { text: jsonl(verbatim('x-1')), format: 'swebench', suite: 'swe-none' }, 'test'));
    expect(none).toMatch(
      /line 1: instance x-1: repo mahmoud\/boltons is read from a directory of mirrors and none is set: pass --repos DIR to `crucible tasks import` \(DIR holding mahmoud__boltons\.git, mahmoud__boltons or mahmoud\/boltons\), set CRUCIBLE_REPO_MIRRORS on the server/,
    );
    const gone = await failure(
      importTasks(database.db, { text: jsonl(verbatim('x-2')), format: 'swebench', suite: 'swe-gone' }, 'test', { mirrors: { dir: path.join(tmp, 'nope') } }),
    );
    expect(gone).toContain(`line 1: instance x-2: the mirror directory ${tmp}/nope does not exist`);
  });

  it('a mirror must stay inside the directory: no symbolic link, .git file or alternates out of it', async () => {
    const evil = path.join(outside, 'evil.git');
    git(tmp, 'clone', '-q', '--bare', upstream.dir, evil);
    const dir = path.join(tmp, 'confined');
    fs.mkdirSync(path.join(dir, 'link'), { recursive: true });
    fs.symlinkSync(evil, path.join(dir, 'link__out.git'));
    fs.symlinkSync(outside, path.join(dir, 'link', 'dotdot')); // owner/name through a linked owner directory
    fs.mkdirSync(path.join(dir, 'gitfile__repo'));
    const evilClone = path.join(outside, 'evil-clone');
    git(tmp, 'clone', '-q', upstream.dir, evilClone);
    fs.writeFileSync(path.join(dir, 'gitfile__repo', '.git'), `gitdir: ${evilClone}/.git\n`);
    git(tmp, 'clone', '-q', '--bare', '--shared', evil, path.join(dir, 'shared__clone.git'));
    const msg = await failure(
      importTasks(
        database.db,
        {
          text: jsonl(verbatim('s-1', 'link/out'), verbatim('s-2', 'link/dotdot'), verbatim('s-3', 'gitfile/repo'), verbatim('s-4', 'shared/clone')),
          format: 'swebench',
          suite: 'swe-escape',
        },
        'test',
        { mirrors: { dir } },
      ),
    );
    expect(msg).toMatch(/^4 bad line/);
    expect(msg).toContain(`line 1: instance s-1: the mirror of link/out at ${dir}/link__out.git resolves to ${evil}, outside the mirror directory ${dir}`);
    expect(msg).toContain(`line 2: instance s-2: the mirror of link/dotdot at ${dir}/link/dotdot resolves to ${outside}, outside the mirror directory`);
    expect(msg).toContain(
      `line 3: instance s-3: the mirror of gitfile/repo at ${dir}/gitfile__repo reads objects from outside the mirror directory ${dir}: its git directory ${evilClone}/.git`,
    );
    expect(msg).toContain(
      `line 4: instance s-4: the mirror of shared/clone at ${dir}/shared__clone.git reads objects from outside the mirror directory ${dir}: its alternate object directory ${evil}/objects`,
    );
  });

  it('over the API a client cannot name the mirror directory', async () => {
    const op = await callerAs(database.db, 'operator');
    const msg = await failure(op.tasks.import({ suite: 'swe-client-dir', format: 'swebench', text: jsonl(verbatim('c-1')), repos: outside }));
    expect(msg).toMatch(/repos names a location on the server; imports over the API read mirrors only from CRUCIBLE_REPO_MIRRORS/);
  });

  it(
    "a git URL base is cloned into the cache (file:// here, offline) and reused; an unreachable one is named with git's reason",
    { timeout: 120_000 },
    async () => {
      const hosted = path.join(tmp, 'hosted');
      fs.mkdirSync(path.join(hosted, 'mahmoud'), { recursive: true });
      git(tmp, 'clone', '-q', '--bare', upstream.dir, path.join(hosted, 'mahmoud', 'boltons'));
      const data = path.join(tmp, 'data');
      const source = mirrorSource(`file://${hosted}/`, { cwd: tmp, dataDir: data });
      expect(source).toMatchObject({ url: `file://${hosted}`, cacheDir: expect.stringMatching(new RegExp(`^${data}/repo-mirrors/[0-9a-f]{16}$`)) });
      const cacheDir = (source as { cacheDir: string }).cacheDir;
      const res = await importTasks(database.db, { text: jsonl(verbatim('u-1')), format: 'swebench', suite: 'swe-url' }, 'test', { mirrors: source });
      expect(res.imported).toBe(1);
      expect(fs.existsSync(path.join(cacheDir, 'mahmoud__boltons.git', 'objects'))).toBe(true);
      // the cache serves the next import with the upstream gone
      fs.rmSync(hosted, { recursive: true });
      const again = await importTasks(database.db, { text: jsonl(verbatim('u-2')), format: 'swebench', suite: 'swe-url-2' }, 'test', { mirrors: source });
      expect(again.imported).toBe(1);
      const down = mirrorSource('http://127.0.0.1:9/git', { cwd: tmp, dataDir: data });
      const msg = await failure(importTasks(database.db, { text: jsonl(verbatim('u-3')), format: 'swebench', suite: 'swe-down' }, 'test', { mirrors: down }));
      expect(msg).toMatch(
        /line 1: instance u-3: cannot clone http:\/\/127\.0\.0\.1:9\/git\/mahmoud\/boltons \(the mirror of mahmoud\/boltons\) into \S+mahmoud__boltons\.git: .*(Failed to connect|Could not resolve|Connection refused).*; where the network is unreachable, clone it elsewhere and import with --repos DIR/,
      );
      expect(fs.existsSync(path.join((down as { cacheDir: string }).cacheDir, 'mahmoud__boltons.git'))).toBe(false);
    },
  );

  it(
    'the real CLI: --repos DIR (relative to where it runs); refused with --url, for other formats and for a missing directory',
    { timeout: 120_000 },
    async () => {
      const file = path.join(work, 'swe-lite.jsonl');
      fs.writeFileSync(file, jsonl(verbatim('cli-1'), verbatim('cli-2')));
      const env = { DATABASE_URL: database.url, CRUCIBLE_REPO_MIRRORS: '' };
      const none = await runCrucible(['tasks', 'import', file, '--format', 'swebench'], env);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toMatch(/line 1: instance cli-1: repo mahmoud\/boltons is read from a directory of mirrors and none is set: pass --repos DIR/);
      const ok = await runCrucible(['tasks', 'import', file, '--format', 'swebench', '--repos', 'mirrors', '--json'], env, { cwd: tmp });
      expect(ok.stderr).toBe('');
      expect(JSON.parse(ok.stdout)).toMatchObject({ suite: 'swe-lite', imported: 2 });
      // the in-process CLI also reads CRUCIBLE_REPO_MIRRORS when --repos is not given
      const viaSetting = await runCrucible(['tasks', 'import', file, '--format', 'swebench', '--suite', 'swe-lite-2', '--json'], {
        ...env,
        CRUCIBLE_REPO_MIRRORS: mirrors,
      });
      expect(viaSetting.stderr).toBe('');
      expect(JSON.parse(viaSetting.stdout)).toMatchObject({ imported: 2 });
      const overUrl = await runCrucible(
        ['tasks', 'import', file, '--format', 'swebench', '--repos', mirrors, '--url', 'http://127.0.0.1:9', '--token', 'crc_x'],
        env,
      );
      expect(overUrl.code).not.toBe(0);
      expect(overUrl.stderr).toMatch(/--repos names a directory on this host; over --url the server reads mirrors only from its own CRUCIBLE_REPO_MIRRORS/);
      const wrongFormat = await runCrucible(['tasks', 'import', file, '--format', 'crucible-repo', '--repos', mirrors], env);
      expect(wrongFormat.stderr).toMatch(/--repos is for --format swebench/);
      const missing = await runCrucible(['tasks', 'import', file, '--format', 'swebench', '--repos', path.join(tmp, 'absent')], env);
      expect(missing.stderr).toMatch(new RegExp(`--repos: no such directory: ${tmp}/absent`));
      const help = await runCrucible(['tasks', 'import', '--help'], env);
      expect(help.stdout + help.stderr).toMatch(/--repos DIR\|URL/);
    },
  );
});
