import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { loadRepoSuite } from '@/lib/agent/suite/repo-suite';
import { builtinSuite } from './builtin';
import { REPO_SUITE } from './repo-suite-bundled';
import { loadStoredRepoTask } from './repo-task-store';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const line = (o: object) => JSON.stringify(o);
const good = { id: 'inc', language: 'python', prompt: 'def inc(x):\n', entryPoint: 'inc', tests: [{ input: [1], expected: 2 }] };

describe('task import', () => {
  it('imports Crucible JSONL and HumanEval JSONL', async () => {
    const op = await callerAs(database.db, 'operator');
    const crucible = [line(good), line({ ...good, id: 'inc-js', language: 'javascript', prompt: 'function inc(x) {\n', risk: 'high' })].join('\n');
    expect((await op.tasks.import({ suite: 'mine', text: crucible })).imported).toBe(2);
    const he = line({
      task_id: 'HumanEval/0',
      prompt: 'def add(a, b):\n',
      entry_point: 'add',
      test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n',
    });
    expect((await op.tasks.import({ suite: 'he', format: 'humaneval', text: he })).imported).toBe(1);
    const tasks = await op.tasks.list({ suite: 'mine' });
    expect(tasks.map((t) => [t.externalId, t.language, t.risk])).toEqual([
      ['inc', 'python', 'routine'],
      ['inc-js', 'javascript', 'high'],
    ]);
    const [heTask] = await op.tasks.list({ suite: 'he' });
    expect(heTask!.tests).toMatchObject({ kind: 'humaneval' });
  });

  it('reports every bad line with its number and imports nothing', async () => {
    const op = await callerAs(database.db, 'operator');
    const text = [line(good), '{not json', line({ ...good, id: 'b', language: 'rust' }), '', line({ ...good, id: 'c', tests: [] }), line(good)].join('\n');
    const err = await op.tasks.import({ suite: 'broken', text }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(/line 2: not valid JSON/);
    expect(msg).toMatch(/line 3: language/);
    expect(msg).toMatch(/line 5: tests: a task needs at least one test/);
    expect(msg).toMatch(/line 6: duplicate task id "inc" \(first on line 1\)/);
    expect(msg).not.toMatch(/line 1:/);
    const [{ n } = { n: 0 }] = await database.sql`select count(*)::int as n from task_suites where name = 'broken'`;
    expect(n).toBe(0);
  });

  it('refuses to overwrite a suite unless asked to replace it', async () => {
    const op = await callerAs(database.db, 'operator');
    await op.tasks.import({ suite: 'twice', text: line(good) });
    await expect(op.tasks.import({ suite: 'twice', text: line(good) })).rejects.toThrow(/--replace/);
    expect((await op.tasks.import({ suite: 'twice', text: line({ ...good, id: 'other' }), replace: true })).imported).toBe(1);
    expect((await op.tasks.list({ suite: 'twice' })).map((t) => t.externalId)).toEqual(['other']);
  });

  it('reviewers cannot import', async () => {
    const rev = await callerAs(database.db, 'reviewer');
    await expect(rev.tasks.import({ suite: 'x', text: line(good) })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('built-in suite', () => {
  it('has both languages, graded difficulty, a held-out split and a demonstration for every task', () => {
    const suite = builtinSuite();
    expect(suite.length).toBeGreaterThanOrEqual(60);
    expect(new Set(suite.map((t) => t.language))).toEqual(new Set(['python', 'javascript']));
    const heldout = suite.filter((t) => t.split === 'heldout').length;
    expect(heldout / suite.length).toBeGreaterThan(0.1);
    expect(heldout / suite.length).toBeLessThan(0.4);
    expect(new Set(suite.map((t) => t.difficulty)).size).toBeGreaterThanOrEqual(4);
    for (const t of suite) {
      expect(t.demonstration?.startsWith(t.prompt), t.externalId).toBe(true);
      expect(t.tests.kind === 'io' && t.tests.cases.length >= 3, t.externalId).toBe(true);
    }
    expect(JSON.stringify(builtinSuite())).toBe(JSON.stringify(suite)); // deterministic
  });

  it('is created in the database on first use and runs can target it', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'on builtin', config: { suite: 'builtin' } });
    expect(run.suiteId).toBeTruthy();
    const tasks = await op.tasks.list({ suite: 'builtin', split: 'heldout' });
    expect(tasks.length).toBeGreaterThan(5);
    expect(tasks.every((t) => t.split === 'heldout')).toBe(true);
  });

  it('the repository suite (tasks/repo-suite) is created on first use too: listed for the launch form, runs can target it', async () => {
    const op = await callerAs(database.db, 'operator');
    const suites = await op.runs.suites();
    const repo = suites.find((s) => s.name === REPO_SUITE);
    expect(repo).toMatchObject({ tasks: loadRepoSuite().length, repoTasks: loadRepoSuite().length });
    expect(repo!.tasks).toBeGreaterThanOrEqual(40);
    const run = await op.runs.create({ name: 'on repo-suite', config: { suite: REPO_SUITE, tools: ['bash', 'str_replace', 'submit'] } });
    expect(run.suiteId).toBe(repo!.id);
    const heldout = await op.tasks.list({ suite: REPO_SUITE, split: 'heldout' });
    expect(heldout.length).toBeGreaterThan(0);
    expect(heldout.every((t) => t.kind === 'repo')).toBe(true);
    // the stored task is what the grader and episodes read: workspace by hash, gold patch kept
    const stored = await loadStoredRepoTask(database.db, heldout[0]!.id);
    expect(stored.workspaceSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(stored.goldPatch).toBeTruthy();
  });
});
