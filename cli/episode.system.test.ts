import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import { TEST_STORE, testDataDir, ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import type { Database } from '@/db/client';
import { episodes, rewards, runEvents, turns } from '@/db/schema';
import { asc, eq } from 'drizzle-orm';

// The real `crucible` binary (scripts/crucible.mjs) with real bwrap sandboxes, as an operator runs it.
const root = path.resolve(import.meta.dirname, '..');
let dir: string;
let database: Database;
let databaseUrl: string;
beforeAll(async () => {
  ensureTestEnvironment();
  dir = testDataDir('cli-episode');
  // the test's own database: a CLI command never creates one where no Crucible ran (cli/database.ts)
  database = await freshDatabase();
  databaseUrl = database.url;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function crucible(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts/crucible.mjs'), ...args],
      { cwd: root, env: childEnv({ CRUCIBLE_DATA_DIR: dir, CRUCIBLE_ENV_STORE: TEST_STORE, DATABASE_URL: databaseUrl }), maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const taskLine = {
  id: 'py-add',
  language: 'python',
  problem_statement: 'add() returns the difference; make it return the sum.',
  workspace: {
    files: {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'check.py': 'from calc import add\nassert add(2, 3) == 5\nprint("ok")\n',
      'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    },
  },
  FAIL_TO_PASS: ['test_calc.py::test_add'],
  PASS_TO_PASS: ['test_calc.py::test_zero'],
};
const script = [
  { name: 'read_file', arguments: { path: 'calc.py' } },
  { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } },
  { name: 'bash', arguments: { command: 'python3 check.py' } },
  { name: 'nope', arguments: {} },
  { name: 'submit', arguments: {} },
];

/** The --task-file task, its fixing script and a script that submits at once (each test may run alone). */
function writeTaskAndScripts() {
  writeFileSync(path.join(dir, 'tasks.jsonl'), JSON.stringify(taskLine) + '\n');
  writeFileSync(path.join(dir, 'script.jsonl'), script.map((s) => JSON.stringify(s)).join('\n') + '\n');
  writeFileSync(path.join(dir, 'submit-only.jsonl'), '{"name": "submit"}\n');
}

describe('crucible episode run (real binary, bwrap)', () => {
  it('plays a script on a task from --task-file, grades it in the repo environment and prints the episode as JSON', async () => {
    writeFileSync(path.join(dir, 'tasks.jsonl'), JSON.stringify(taskLine) + '\n');
    writeFileSync(path.join(dir, 'script.jsonl'), script.map((s) => JSON.stringify(s)).join('\n') + '\n');
    const args = ['episode', 'run', '--task', 'py-add', '--task-file', path.join(dir, 'tasks.jsonl')];
    const r = await crucible([...args, '--script', path.join(dir, 'script.jsonl'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(expect.arrayContaining(['reward', 'components', 'status', 'end', 'turns', 'diff', 'tests']));
    expect(out.end).toBe('submitted');
    expect(out.turns).toHaveLength(5);
    expect(out.turns[0].toolCalls[0]).toMatchObject({ name: 'read_file', arguments: { path: 'calc.py' }, output: 'def add(a, b):\n    return a - b\n' });
    expect(out.turns[2].toolCalls[0].output).toBe('ok\n[exit code 0]');
    expect(out.turns[3].toolCalls[0].error).toMatch(/unknown tool "nope"/);
    expect(out.turns[1].diffSoFar).toContain('+    return a + b');
    expect(out.diff).toContain('-    return a - b\n+    return a + b');
    expect(out).toMatchObject({ status: 'graded', reward: 1 });
    expect(out.tests).toEqual(
      expect.arrayContaining([
        { name: 'test_calc.py::test_add', passed: true, outcome: 'passed' },
        { name: 'test_calc.py::test_zero', passed: true, outcome: 'passed' },
      ]),
    );
    // without the fix the same task scores 0 (its FAIL_TO_PASS test fails)
    writeFileSync(path.join(dir, 'submit-only.jsonl'), '{"name": "submit"}\n');
    const none = JSON.parse((await crucible([...args, '--script', path.join(dir, 'submit-only.jsonl'), '--json'])).stdout);
    expect(none).toMatchObject({ status: 'graded', reward: 0, diff: '' });
    expect(none.tests).toContainEqual(expect.objectContaining({ name: 'test_calc.py::test_add', passed: false }));
  });

  it('prints a readable episode without --json', async () => {
    const args = ['episode', 'run', '--task', 'py-add', '--task-file', path.join(dir, 'tasks.jsonl'), '--script', path.join(dir, 'script.jsonl')];
    const r = await crucible([...args, '--env', 'default', '--no-grade']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^episode on py-add: submitted, 5 turns/);
    expect(r.stdout).toContain('turn 3:\n  bash {"command":"python3 check.py"} →\n      ok\n      [exit code 0]');
    expect(r.stdout).toMatch(/^grade: not graded \(--no-grade\)$/m);
  });

  it('takes the task from the built-in suite by default', async () => {
    writeFileSync(path.join(dir, 'look.jsonl'), '{"name": "read_file", "arguments": {"path": "booking/intervals.py"}}\n{"name": "submit"}\n');
    const r = await crucible(['episode', 'run', '--task', 'py-intervals-touching', '--script', path.join(dir, 'look.jsonl'), '--no-grade', '--json']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ task: 'py-intervals-touching', end: 'submitted', diff: '' });
    expect(out.turns[0].toolCalls[0].output).toContain('def merge');
    const other = await crucible(['episode', 'run', '--task', 'x', '--suite', 'never-imported', '--script', path.join(dir, 'look.jsonl')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('no task suite "never-imported" in the database');
  });

  it('refuses a bad script by line number, and an unknown task with what there is', async () => {
    writeFileSync(path.join(dir, 'bad.jsonl'), '{"name": "bash", "arguments": {"command": "ls"}}\n{oops\n\n{"arguments": {}}\n');
    const bad = await crucible([
      'episode',
      'run',
      '--task',
      'py-add',
      '--task-file',
      path.join(dir, 'tasks.jsonl'),
      '--script',
      path.join(dir, 'bad.jsonl'),
      '--json',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.jsonl has bad lines:\n {2}line 2: not valid JSON.*\n {2}line 4: expected \{"name"/);
    const missing = await crucible([
      'episode',
      'run',
      '--task',
      'nope',
      '--task-file',
      path.join(dir, 'tasks.jsonl'),
      '--script',
      path.join(dir, 'script.jsonl'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no task "nope" in');
    expect(missing.stderr).toContain('it has: py-add');
  });
  it('validates numeric flags as positive integers, refuses --suite with --task-file, and explains a bad script line', async () => {
    const base = ['episode', 'run', '--task', 'py-add', '--task-file', path.join(dir, 'tasks.jsonl'), '--script', path.join(dir, 'script.jsonl')];
    for (const [flag, value, why] of [
      ['--max-turns', '0', 'must be at least 1'],
      ['--timeout-s', '1.5', 'must be a whole number'],
      ['--token-budget', 'lots', 'must be a number'],
      ['--max-new-tokens=-4', null, 'must be at least 1'],
    ] as const) {
      const r = await crucible([...base, ...(value === null ? [flag] : [flag, value])]);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toContain(`crucible: ${flag.split('=')[0]} ${why}, got "${value ?? '-4'}"`);
    }
    const both = await crucible([...base, '--suite', 'repo-suite']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--suite and --task-file both name where the task comes from; give one');
    writeFileSync(path.join(dir, 'issues.jsonl'), '{"name": "bash", "arguments": {"command": "ls"}}\n{"name": 5}\n{"text": 1}\n');
    const bad = await crucible([...base.slice(0, -1), path.join(dir, 'issues.jsonl')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /line 2: expected \{"name".*: name: Invalid input: expected string, received number\n {2}line 3: .*text: Invalid input: expected string/,
    );
  });

  it('takes arguments as a JSON string and passes --token-budget and --max-new-tokens to the episode', async () => {
    writeFileSync(
      path.join(dir, 'string-args.jsonl'),
      `${JSON.stringify({ name: 'read_file', arguments: JSON.stringify({ path: 'calc.py' }) })}\n{"name": "submit"}\n`,
    );
    const args = ['episode', 'run', '--task', 'py-add', '--task-file', path.join(dir, 'tasks.jsonl'), '--env', 'default', '--no-grade', '--json'];
    const r = await crucible([...args, '--script', path.join(dir, 'string-args.jsonl')]);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.turns[0].toolCalls[0]).toMatchObject({ name: 'read_file', arguments: { path: 'calc.py' }, output: 'def add(a, b):\n    return a - b\n' });
    // one turn may sample at most 8 tokens (bytes, for the byte template): the call is cut and never parses
    const cut = JSON.parse((await crucible([...args, '--script', path.join(dir, 'string-args.jsonl'), '--max-new-tokens', '8'])).stdout);
    expect(cut.turns[0].assistant.length).toBeLessThanOrEqual(8);
    expect(cut.turns[0].toolCalls).toEqual([]);
    // a budget the prompt alone exceeds ends the episode on it
    const spent = JSON.parse((await crucible([...args, '--script', path.join(dir, 'string-args.jsonl'), '--token-budget', '1'])).stdout);
    expect(spent.end).toBe('token_budget');
  });

  it('takes the task from a suite imported into the database with --suite', async () => {
    writeFileSync(path.join(dir, 'db-tasks.jsonl'), JSON.stringify(taskLine) + '\n');
    writeFileSync(path.join(dir, 'db-script.jsonl'), script.map((s) => JSON.stringify(s)).join('\n') + '\n');
    const imported = await crucible(['tasks', 'import', path.join(dir, 'db-tasks.jsonl'), '--format', 'crucible-repo', '--suite', 'mine', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const r = await crucible(['episode', 'run', '--task', 'py-add', '--suite', 'mine', '--script', path.join(dir, 'db-script.jsonl'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'graded', reward: 1, end: 'submitted' });
    const missing = await crucible(['episode', 'run', '--task', 'nope', '--suite', 'mine', '--script', path.join(dir, 'db-script.jsonl')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no task "nope" in suite "mine"; it has: py-add/);
    const noSuite = await crucible(['episode', 'run', '--task', 'py-add', '--suite', 'absent', '--script', path.join(dir, 'db-script.jsonl')]);
    expect(noSuite.stderr).toMatch(/no task suite "absent" in the database; import it with `crucible tasks import/);
  }, 180_000);

  it('--store writes the episode, its turns and its reward, read back by the console and exported like an RL episode', async () => {
    writeTaskAndScripts();
    // a built-in task (the repo-suite rows are created in the database on first use), looked at and left unfixed: graded 0
    writeFileSync(path.join(dir, 'look-store.jsonl'), '{"name": "read_file", "arguments": {"path": "booking/intervals.py"}}\n{"name": "submit"}\n');
    const r = await crucible(['episode', 'run', '--task', 'py-intervals-touching', '--script', path.join(dir, 'look-store.jsonl'), '--store', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ task: 'py-intervals-touching', status: 'graded', reward: 0, stored: { run: 'cli-episodes', status: 'scored' } });
    const { episodeId, runId } = out.stored as { episodeId: string; runId: string };
    const db = database.db;
    const [row] = await db.select().from(episodes).where(eq(episodes.id, episodeId));
    expect(row).toMatchObject({ runId, status: 'scored', endReason: 'submitted', turnsCount: 2, runtime: 'bwrap', workerId: 'cli:episode-run' });
    expect(row!.envHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(row!.grading).toMatchObject({ status: 'graded', reward: 0, patch: '', end: 'submitted' });
    const turnRows = await db.select().from(turns).where(eq(turns.episodeId, episodeId)).orderBy(asc(turns.index));
    expect(turnRows.map((t) => t.toolCalls?.[0]?.name)).toEqual(['read_file', 'submit']);
    expect(turnRows[0]!.tokenIds!.length).toBe(turnRows[0]!.lossMask!.length);
    expect(turnRows[0]!.lossMask).toContain(1);
    const [reward] = await db.select().from(rewards).where(eq(rewards.episodeId, episodeId));
    // what produced the reward, as RL episodes record it: the grading environment and the grader@workspace version
    expect(reward).toMatchObject({ value: 0, envHash: row!.envHash });
    expect(reward!.harnessVersion).toMatch(/^repo-grader-.+@workspace:sha256:[0-9a-f]{64}$/);
    expect(reward!.components).toHaveProperty('resolved', 0);

    // the console's reads (episode page, run page and its episode table), through the same tRPC procedures
    const admin = await callerAs(db, 'admin');
    const page = await admin.episodes.get({ id: episodeId });
    expect(page).toMatchObject({ runName: 'cli-episodes', task: { externalId: 'py-intervals-touching', kind: 'repo' }, reward: { value: 0 } });
    expect(page.turns).toHaveLength(2);
    expect(page.repoTests?.failToPass.length).toBeGreaterThan(0);
    const run = await admin.runs.get({ id: runId });
    expect(run).toMatchObject({ status: 'completed', episodesDone: 1, episodesTotal: 1, suiteName: 'repo-suite', config: { origin: 'episode-run' } });
    expect((await admin.episodes.list({ runId })).items).toEqual([expect.objectContaining({ id: episodeId, status: 'scored', reward: 0 })]);

    // a --task-file task fixed by the script, stored in a named run (its task imported into a suite of its own): reward 1
    const fixed = await crucible([
      'episode',
      'run',
      '--task',
      'py-add',
      '--task-file',
      path.join(dir, 'tasks.jsonl'),
      '--script',
      path.join(dir, 'script.jsonl'),
      '--store',
      '--run',
      'scripted fixes',
      '--json',
    ]);
    expect(fixed.code, fixed.stderr).toBe(0);
    const fixedOut = JSON.parse(fixed.stdout);
    expect(fixedOut).toMatchObject({ reward: 1, stored: { run: 'scripted fixes', status: 'scored' } });
    // the same run again: found by name, the next sample
    const again = JSON.parse(
      (
        await crucible([
          'episode',
          'run',
          '--task',
          'py-add',
          '--task-file',
          path.join(dir, 'tasks.jsonl'),
          '--script',
          path.join(dir, 'submit-only.jsonl'),
          '--store',
          '--run',
          'scripted fixes',
          '--json',
        ])
      ).stdout,
    );
    expect(again.stored.runId).toBe(fixedOut.stored.runId);
    expect((await admin.episodes.get({ id: again.stored.episodeId })).task?.id).toBe((await admin.episodes.get({ id: fixedOut.stored.episodeId })).task?.id);
    expect(await db.select({ type: runEvents.type }).from(runEvents).where(eq(runEvents.runId, again.stored.runId))).toEqual(
      expect.arrayContaining([{ type: 'created' }, { type: 'episode_stored' }]),
    );
    expect(await admin.runs.get({ id: again.stored.runId })).toMatchObject({ episodesDone: 2, lastRewardMean: 0.5 });

    // the export: the fixed episode with its messages, token view, reward and provenance
    const exported = await crucible(['episodes', 'export', '--run', fixedOut.stored.runId, '--min-reward', '1']);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: fixedOut.stored.episodeId, task_id: 'py-add', reward: 1, end_reason: 'submitted', policy_version: null });
    expect(lines[0].harness_version).toMatch(/@workspace:/);
    expect(lines[0].env_hash).toBe(row!.envHash);
    expect(lines[0].messages.filter((m: { role: string }) => m.role === 'tool')).toHaveLength(5);
    expect(lines[0].messages[2].tool_calls[0].function).toMatchObject({ name: 'read_file' });
    expect(lines[0].tokens.ids.length).toBe(lines[0].tokens.loss_mask.length);
  }, 240_000);

  it("validates --store and --run, and keeps a training run's name for that run", async () => {
    writeTaskAndScripts();
    const base = ['episode', 'run', '--task', 'py-add', '--task-file', path.join(dir, 'tasks.jsonl'), '--script', path.join(dir, 'script.jsonl')];
    const noStore = await crucible([...base, '--run', 'x']);
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain('crucible: --run names the run that holds a stored episode; add --store');
    const ungraded = await crucible([...base, '--store', '--no-grade']);
    expect(ungraded.code).toBe(2);
    expect(ungraded.stderr).toContain('--store stores the episode with its reward, which needs the grade; leave out --no-grade');
    const blank = await crucible([...base, '--store', '--run', ' ']);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('crucible: --run: give the run a name');
    const created = await crucible(['runs', 'create', '--name', 'trained', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const taken = await crucible([...base, '--store', '--run', 'trained']);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain('--store: run "trained" is a training run; stored episodes go into a run of their own');
    // the marker is the command's own: a launched run cannot carry it
    const marked = await crucible(['runs', 'create', '--name', 'fake', '--set', 'origin=episode-run']);
    expect(marked.code).not.toBe(0);
    expect(marked.stderr).toContain('origin: "episode-run" marks a run that holds episodes stored by `crucible episode run --store`');
  }, 120_000);
});
