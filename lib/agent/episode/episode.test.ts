import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine, type RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { TEST_STORE, testManager } from '@/lib/sandbox/sandbox.testkit';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import { gradeRepoTask } from '../grade/grade-repo-task';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { resolveRepoTask } from '../workspace/resolve-task';
import { ByteTemplateRenderer } from '../render/byte-template';
import { ScriptedPolicy, type ScriptStep } from '../policies/scripted';
import { AgentPolicyError, defaultSystemPrompt, runAgentEpisode, type AgentEpisodeOptions } from './run-episode';
import { toolSchemas } from '../tools/tool-definitions';
import { agentTaskPrompt } from './task-prompt';

// Real bwrap sandboxes (lib/sandbox/test-support), the default environment (python3, node).
let manager: SandboxManager;
let cleanup: () => Promise<void>;
beforeAll(() => {
  ({ manager, cleanup } = testManager('agent-episode'));
  ensureBuiltInEnvironment('repo', TEST_STORE); // the default toolchain plus pytest
});
afterAll(async () => cleanup?.());

function task(line: Record<string, unknown>): RepoTask {
  return resolveRepoTask(crucibleRepoTaskLine.parse(line), { baseDir: '/tmp' }); // environment: repo
}

const pyTask = task({
  id: 'py-add',
  language: 'python',
  problem_statement: 'add(a, b) in calc.py returns the difference; make it return the sum.',
  workspace: {
    files: {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    },
  },
  FAIL_TO_PASS: ['test_calc.py::test_add'],
  PASS_TO_PASS: ['test_calc.py::test_zero'],
});

const jsTask = task({
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
  test_command: 'node --test test/',
});

/** The real grader (lib/agent/grade): the patch on a fresh pristine copy in a new sandbox, results from its own report. */
const grade = (t: RepoTask, patch: string) => gradeRepoTask(manager, t, patch, { limits: episodeSandboxLimits });

const run = (t: RepoTask, steps: ScriptStep[], extra: Partial<AgentEpisodeOptions<unknown>> = {}) =>
  runAgentEpisode({ manager, task: t, policy: new ScriptedPolicy(steps), renderer: new ByteTemplateRenderer(), limits: episodeSandboxLimits, ...extra });

const outputs = (r: { turns: { toolCalls: { output: string }[] }[] }) => r.turns.map((t) => t.toolCalls.map((c) => c.output).join('\n'));

describe('agent episode on a persistent sandbox (scripted policy, bwrap)', () => {
  it('fixes a small Python task: read_file, str_replace, run the test, submit; graded in a new sandbox', async () => {
    const r = await runAgentEpisode({
      manager,
      task: pyTask,
      policy: new ScriptedPolicy([
        { name: 'read_file', arguments: { path: 'calc.py' } },
        { name: 'bash', arguments: { command: 'python3 -m pytest -q test_calc.py' } },
        { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } },
        { name: 'bash', arguments: { command: 'python3 -m pytest -q test_calc.py' } },
        { name: 'submit', arguments: {} },
      ]),
      renderer: new ByteTemplateRenderer(),
      limits: episodeSandboxLimits,
      diffEachTurn: true,
      grade,
    });
    expect(r.error).toBeUndefined();
    expect(r.end).toBe('submitted');
    const out = outputs(r);
    expect(out[0]).toBe('def add(a, b):\n    return a - b\n');
    expect(out[1]).toMatch(/1 failed, 1 passed[\s\S]*\[exit code 1\]$/);
    expect(out[2]).toBe('replaced 1 occurrence in calc.py');
    expect(out[3]).toMatch(/2 passed.*\n\[exit code 0\]$/);
    expect(r.turns[1]!.diffSoFar).toBe('');
    expect(r.turns[2]!.diffSoFar).toContain('+    return a + b');
    expect(r.patch).toContain('--- a/calc.py\n+++ b/calc.py');
    expect(r.patch).toContain('-    return a - b\n+    return a + b');
    expect(r.patch).not.toMatch(/__pycache__|\.pytest_cache/); // the test runs' caches are not part of the workspace
    expect(r.grade).toMatchObject({ status: 'graded', reward: 1 });
    expect(r.grade!.tests.map((t) => [t.name, t.passed])).toEqual(
      expect.arrayContaining([
        ['test_calc.py::test_add', true],
        ['test_calc.py::test_zero', true],
      ]),
    );
    // one sequence: five assistant spans with mask 1, tool output in between with mask 0
    expect(r.sequence.spans.filter((s) => s.kind === 'assistant')).toHaveLength(5);
    expect(r.sequence.lossMask.filter((m) => m === 1).length).toBe(r.turns.reduce((n, t) => n + t.tokens, 0));
    expect(manager.stats().busy).toBe(0);
  });

  it('fixes a small JavaScript task with write_file and node --test', async () => {
    const r = await run(
      jsTask,
      [
        { name: 'write_file', arguments: { path: 'src/sum.js', content: 'exports.sum = (xs) => xs.reduce((a, b) => a + b, 0);\n' } },
        { name: 'bash', arguments: { command: 'node --test test/ 2>&1 | grep -E "^# (pass|fail)"' } },
        { name: 'submit', arguments: {} },
      ],
      { grade },
    );
    expect(r.end).toBe('submitted');
    expect(outputs(r)[1]).toBe('# pass 1\n# fail 0\n[exit code 0]');
    expect(r.patch).toContain('+exports.sum = (xs) => xs.reduce((a, b) => a + b, 0);');
    expect(r.grade).toMatchObject({ status: 'graded', reward: 1 });
    expect(manager.stats().busy).toBe(0);
  });

  it("a TypeScript task: the agent's node runs .ts tests (the grader's type-stripping hooks through NODE_OPTIONS) and the fix grades 1", async () => {
    const ts = task({
      id: 'ts-sum',
      language: 'javascript',
      problem_statement: 'sum(xs) in src/sum.ts subtracts; make it add.',
      workspace: {
        files: {
          'package.json': '{ "type": "module" }\n',
          'src/sum.ts': 'export function sum(xs: readonly number[]): number {\n  return xs.reduce((a: number, b: number) => a - b, 0);\n}\n',
          'test/sum.test.ts':
            "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from '../src/sum.ts';\n\ntest('sums', () => assert.equal(sum([1, 2, 3] as number[]), 6));\n",
        },
      },
      FAIL_TO_PASS: ['test/sum.test.ts::sums'],
    });
    const r = await run(
      ts,
      [
        { name: 'bash', arguments: { command: 'node --test test/sum.test.ts 2>&1 | grep -E "^# (pass|fail)"' } },
        { name: 'str_replace', arguments: { path: 'src/sum.ts', old_str: 'a - b', new_str: 'a + b' } },
        { name: 'bash', arguments: { command: 'node --test test/sum.test.ts 2>&1 | grep -E "^# (pass|fail)"' } },
        { name: 'submit', arguments: {} },
      ],
      { grade },
    );
    expect(r.end).toBe('submitted');
    expect(outputs(r)[0]).toBe('# pass 0\n# fail 1\n[exit code 0]');
    expect(outputs(r)[2]).toBe('# pass 1\n# fail 0\n[exit code 0]');
    expect(r.grade).toMatchObject({ status: 'graded', reward: 1 });
  });

  it("keeps the workspace (and processes' files) across turns", async () => {
    const r = await run(pyTask, [
      { name: 'write_file', arguments: { path: 'notes/a.txt', content: 'first' } },
      { name: 'bash', arguments: { command: 'cat notes/a.txt; echo second > notes/b.txt; echo state > /tmp/elsewhere' } },
      { name: 'read_file', arguments: { path: 'notes/b.txt' } },
      { name: 'bash', arguments: { command: 'cat /tmp/elsewhere; pwd' } },
      { name: 'submit', arguments: {} },
    ]);
    expect(r.end).toBe('submitted');
    expect(outputs(r)).toEqual(['wrote 5 bytes to notes/a.txt', 'first\n[exit code 0]', 'second\n', 'state\n/work/repo\n[exit code 0]', 'submitted']);
    expect(r.patch).toContain('+++ b/notes/a.txt');
    expect(r.patch).toContain('+++ b/notes/b.txt');
  });

  it('reports every limit to the agent: command timeout, output cap, and ends at max turns', async () => {
    const r = await run(
      pyTask,
      [
        { name: 'bash', arguments: { command: 'sleep 30', timeout_s: 1 } },
        { name: 'bash', arguments: { command: 'head -c 100000 /dev/zero | tr "\\0" x; echo; echo END' } },
        { name: 'read_file', arguments: { path: 'big.txt' } },
        { name: 'bash', arguments: { command: 'true' } },
      ],
      { maxTurns: 3, toolLimits: { outputBytes: 1000 } },
    );
    expect(r.end).toBe('max_turns');
    expect(r.turns).toHaveLength(3);
    const [t1, t2] = r.turns.map((t) => t.toolCalls[0]!);
    expect(t1!.output).toContain('[timed out after 1s; the command and its processes were killed]');
    expect(t1!.error).toBe('timed out after 1s');
    expect(t1!.durationMs).toBeLessThan(10_000);
    expect(t2!.output).toContain('[output truncated: 99005 bytes omitted]');
    expect(t2!.output).toMatch(/END\n\[exit code 0\]$/);
    expect(Buffer.byteLength(t2!.output)).toBeLessThan(1200);
    expect(manager.stats().busy).toBe(0);
  });

  it('ends at the token budget and at the time budget', async () => {
    const prompt = new ByteTemplateRenderer().begin({
      system: defaultSystemPrompt(new ByteTemplateRenderer().toolCallFormat),
      user: agentTaskPrompt(pyTask),
      tools: toolSchemas(),
    }).sequence.ids.length;
    const budget = prompt + 400;
    const tokens = await run(
      pyTask,
      Array.from({ length: 20 }, () => ({ name: 'bash', arguments: { command: 'echo hi' } })),
      { tokenBudget: budget },
    );
    expect(tokens.end).toBe('token_budget');
    // the policy never writes past the budget; only the last tool message may end beyond it
    expect(tokens.sequence.spans.filter((s) => s.kind === 'assistant').at(-1)!.end).toBeLessThanOrEqual(budget);
    expect(tokens.turns.length).toBeGreaterThan(1);
    const t0 = Date.now();
    const time = await run(
      pyTask,
      [
        { name: 'bash', arguments: { command: 'sleep 20' } },
        { name: 'submit', arguments: {} },
      ],
      { timeBudgetMs: 1500 },
    );
    expect(time.end).toBe('time_budget');
    expect(time.turns[0]!.toolCalls[0]!.output).toContain('timed out after');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(time.patch).toBe(''); // still read back and diffed
  });

  it('turns malformed calls, unknown tools, bad arguments and file errors into observations and goes on', async () => {
    const r = await run(pyTask, [
      { text: '<tool_call>{"name": "bash", "arguments": {"command": </tool_call>' },
      { name: 'rm_rf', arguments: {} },
      { name: 'bash', arguments: { cmd: 'ls' } },
      { name: 'read_file', arguments: { path: '../../etc/passwd' } },
      { name: 'read_file', arguments: { path: 'nope.py' } },
      { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a', new_str: 'b' } },
      { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'zzz', new_str: 'b' } },
      { name: 'bash', arguments: { command: 'ln -s /etc/passwd link.txt' } },
      { name: 'read_file', arguments: { path: 'link.txt' } },
      { name: 'write_file', arguments: { path: 'link.txt', content: 'x' } },
      { text: 'I will just think out loud.' },
      { name: 'submit', arguments: {} },
    ]);
    expect(r.end).toBe('submitted');
    const out = outputs(r);
    expect(out[0]).toMatch(/^error: the tool call is not valid JSON/);
    expect(out[1]).toBe('error: unknown tool "rm_rf"; the tools are bash, read_file, write_file, str_replace, submit');
    expect(out[2]).toMatch(/^error: bad arguments for bash: .*command.*expected string/);
    expect(out[3]).toMatch(/^error: \.\.\/\.\.\/etc\/passwd is outside the workspace/);
    expect(out[4]).toBe('error: no such file: nope.py');
    expect(out[5]).toMatch(/^error: old_str occurs 3 times in calc.py/);
    expect(out[6]).toMatch(/^error: old_str was not found in calc.py \(0 matches\)/);
    expect(out[8]).toMatch(/^error: .*link.txt is a symbolic link/);
    expect(out[9]).toMatch(/^error: .*link.txt is a symbolic link/);
    expect(out[10]).toBe(''); // no call: the agent is told so in a tool message
    expect(r.messages.filter((m) => m.role === 'tool').at(-1)!.content).toMatch(/no tool call found/);
    expect(r.turns.flatMap((t) => t.toolCalls).filter((c) => c.error).length).toBe(9);
    // only the first three never ran (valid_tool_calls_per_turn counts the others: a file error is the tool's answer)
    expect(r.turns.map((t) => t.toolCalls.map((c) => c.rejected ?? 'ran'))).toEqual([
      ['malformed'],
      ['unknown_tool'],
      ['bad_arguments'],
      ...Array.from({ length: 7 }, () => ['ran']),
      [],
      ['ran'],
    ]);
    expect(r.patch).toBe(''); // the link is not a regular file: nothing changed
  });

  it('offers only the chosen tools: their schemas alone in the prompt, a call to another is an error observation', async () => {
    const r = await run(
      pyTask,
      [
        { name: 'read_file', arguments: { path: 'calc.py' } },
        { name: 'bash', arguments: { command: 'cat calc.py' } },
        { name: 'submit', arguments: {} },
      ],
      { tools: ['bash', 'submit'] },
    );
    expect(r.end).toBe('submitted');
    expect(outputs(r)[0]).toBe('error: unknown tool "read_file"; the tools are bash, submit');
    expect(outputs(r)[1]).toMatch(/^def add/);
    const system = new ByteTemplateRenderer().tokenizer.decode(r.sequence.ids.slice(r.sequence.spans[0]!.start, r.sequence.spans[0]!.end));
    expect(system).toContain(JSON.stringify(toolSchemas(['bash', 'submit'])[0]));
    expect(system).not.toContain('"read_file"');
  });

  it('the editor tools: view with line numbers and directory trees, insert, undo_edit back to the start, think', async () => {
    const r = await run(
      pyTask,
      [
        { name: 'view', arguments: { path: '.' } },
        { name: 'view', arguments: { path: 'calc.py' } },
        { name: 'view', arguments: { path: 'calc.py', view_range: [2, -1] } },
        { name: 'insert', arguments: { path: 'calc.py', insert_line: 0, new_str: '# sums\n' } },
        { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } },
        { name: 'undo_edit', arguments: { path: 'calc.py' } },
        { name: 'view', arguments: { path: 'calc.py' } },
        { name: 'undo_edit', arguments: { path: 'calc.py' } },
        { name: 'undo_edit', arguments: { path: 'calc.py' } },
        { name: 'write_file', arguments: { path: 'notes/todo.txt', content: 'x' } },
        { name: 'undo_edit', arguments: { path: 'notes/todo.txt' } },
        { name: 'think', arguments: { thought: 'the minus sign is the bug' } },
        { name: 'view', arguments: { path: '.', start_line: 1, end_line: 2 } },
        { name: 'view', arguments: { path: 'calc.py', start_line: 9 } },
        { name: 'submit', arguments: {} },
      ],
      { tools: ['view', 'write_file', 'str_replace', 'insert', 'undo_edit', 'think', 'submit'], maxTurns: 20 },
    );
    expect(r.end).toBe('submitted');
    const out = outputs(r);
    expect(out[0]).toContain('./calc.py\n./test_calc.py');
    expect(out[1]).toBe('     1\tdef add(a, b):\n     2\t    return a - b');
    expect(out[2]).toBe('     2\t    return a - b');
    expect(out[3]).toBe('inserted 1 line after line 0 of calc.py');
    expect(out[5]).toBe('undid the last edit of calc.py');
    expect(out[6]).toBe('     1\t# sums\n     2\tdef add(a, b):\n     3\t    return a - b');
    expect(out[7]).toBe('undid the last edit of calc.py');
    expect(out[8]).toBe('error: no edit of calc.py to undo in this episode');
    expect(out[10]).toBe('undid the last edit of notes/todo.txt: it did not exist before, so it was removed');
    expect(out[11]).toBe('ok: nothing was run and nothing changed');
    expect(out[12]).toBe('error: . is a directory; start_line and end_line apply to files');
    expect(out[13]).toBe('error: calc.py has 2 lines; start_line 9 is past the end');
    // every edit undone: the workspace is as it started, but for the emptied directory (not a file)
    expect(r.patch).toBe('');
  });

  it('a sandbox failure ends the episode as sandbox_error, ungraded, and releases the sandbox', async () => {
    let graded = 0;
    const grade = async () => ++graded;
    const refused = await run(pyTask, [{ name: 'submit', arguments: {} }], { env: 'no-such-environment', grade });
    expect(refused.end).toBe('sandbox_error');
    expect(refused.error).toMatch(/cannot start the episode's sandbox/);
    // destroyed under the episode after its first turn (as a dying sandbox would be)
    let acquired: Sandbox | undefined;
    const m = Object.create(manager) as SandboxManager;
    m.acquire = async (spec) => (acquired = await manager.acquire(spec));
    const policy = new ScriptedPolicy([
      { name: 'bash', arguments: { command: 'true' } },
      { name: 'bash', arguments: { command: 'true' } },
      { name: 'submit', arguments: {} },
    ]);
    const next = policy.next.bind(policy);
    let calls = 0;
    policy.next = async (c, o) => {
      if (++calls === 2) await manager.destroy(acquired!);
      return next(c, o);
    };
    const mid = await runAgentEpisode({ manager: m, task: pyTask, policy, renderer: new ByteTemplateRenderer(), limits: episodeSandboxLimits, grade });
    expect(mid.end).toBe('sandbox_error');
    expect(mid.error).toMatch(/destroyed/);
    expect(mid.turns).toHaveLength(2); // ended at the failing call, not played on
    expect(mid.turns[1]!.toolCalls[0]!.output).toMatch(/^error: the sandbox failed/);
    expect(mid.grade).toBeNull();
    expect(graded).toBe(0);
    expect(manager.stats().busy).toBe(0);
    // a task whose setup fails: the sandbox is alive, and still released
    const setup = await run({ ...pyTask, setup: 'echo broken >&2; exit 3' }, [{ name: 'submit', arguments: {} }], { grade });
    expect(setup.end).toBe('sandbox_error');
    expect(setup.error).toMatch(/the task's setup failed \(nonzero_exit, exit 3\): broken/);
    expect(setup.turns).toHaveLength(0);
    expect(graded).toBe(0);
    expect(manager.stats().busy).toBe(0);
  });
  it('a failing policy is thrown as AgentPolicyError (not ended as sandbox_error, which the RL loop would mask), and the sandbox is released', async () => {
    const policy = new ScriptedPolicy([{ name: 'bash', arguments: { command: 'true' } }]);
    policy.next = async () => {
      throw new Error('onnxruntime: out of memory');
    };
    await expect(runAgentEpisode({ manager, task: pyTask, policy, renderer: new ByteTemplateRenderer(), limits: episodeSandboxLimits })).rejects.toThrow(
      AgentPolicyError,
    );
    expect(manager.stats().busy).toBe(0);
  });
});
