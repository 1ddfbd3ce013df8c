import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine, type RepoGrade, type RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { installedRuntimes, TEST_STORE, testManager } from '@/lib/sandbox/sandbox.testkit';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { LimitsInput } from '@/lib/sandbox/types';
import { gradeRepoTask } from '../grade/grade-repo-task';
import { protectTestFiles } from '../grade/protected-paths';
import { ScriptedPolicy, type ScriptStep } from '../policies/scripted';
import { ByteTemplateRenderer } from '../render/byte-template';
import { resolveRepoTask } from '../workspace/resolve-task';
import { applyWorkspacePatch } from '../workspace/workspace-diff';
import { fileBytes } from '../workspace/workspace-file';
import { runAgentEpisode } from './run-episode';
import { readWorkspace, unescapeListing, writeWorkspace } from './sandbox-workspace';
import { unreadableWorkspaceGrade } from './unreadable-grade';

// Issue 32: routes by which an agent turned its own 0 into an infrastructure failure (reward
// null: retried, then masked). After the agent's first action, a failure to read back, restore
// or grade its workspace is the agent's: graded, reward 0, with the reason. Real sandboxes:
// bwrap for the read-back and the grader, the microVM (when this host has it) for large files.

const task = (line: Record<string, unknown>): RepoTask => resolveRepoTask(crucibleRepoTaskLine.parse(line), { baseDir: '/tmp' });
const py = task({
  id: 'py-add',
  language: 'python',
  problem_statement: 'add(a, b) in calc.py returns the difference; make it return the sum.',
  workspace: {
    files: {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1"\n',
      'tests/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    },
  },
  hidden_tests: { 'test_hidden.py': 'from calc import add\n\n\ndef test_more():\n    assert add(1, 1) == 2\n' },
  FAIL_TO_PASS: ['tests/test_calc.py::test_add', 'test_hidden.py::test_more'],
  PASS_TO_PASS: ['tests/test_calc.py::test_zero'],
});

const bash = (command: string): ScriptStep => ({ name: 'bash', arguments: { command } });
const fix: ScriptStep = { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } };
const outputs = (r: { turns: { toolCalls: { output: string }[] }[] }) => r.turns.flatMap((t) => t.toolCalls.map((c) => c.output)).join('\n');

function play(manager: SandboxManager, steps: ScriptStep[], o: { runtime?: string; limits?: LimitsInput } = {}) {
  return runAgentEpisode<RepoGrade>({
    manager,
    task: py,
    runtime: o.runtime,
    policy: new ScriptedPolicy([...steps, { name: 'submit', arguments: {} }]),
    renderer: new ByteTemplateRenderer(),
    limits: o.limits ?? episodeSandboxLimits,
    maxTurns: steps.length + 1,
    // graded in bwrap whatever ran the episode: what is under test here is the read-back
    grade: (t, patch) => gradeRepoTask(manager, t, patch, { limits: episodeSandboxLimits }),
    unreadable: unreadableWorkspaceGrade,
  });
}

describe('protectTestFiles: a path the task needs as a file or a directory', () => {
  const pristine = { 'calc.py': 'x', 'pyproject.toml': 'p', 'tests/test_calc.py': 't' };
  it('drops agent files under a restored task file, or standing where a task file needs a directory, and lists them', () => {
    const a = protectTestFiles(pristine, { 'calc.py': 'y', 'pyproject.toml/x': '', 'tests/test_calc.py': 't' }, {});
    expect(a).toEqual({ files: { 'calc.py': 'y', 'pyproject.toml': 'p', 'tests/test_calc.py': 't' }, rejectedPaths: ['pyproject.toml', 'pyproject.toml/x'] });
    const b = protectTestFiles(pristine, { 'calc.py': 'x', 'pyproject.toml': 'p', tests: 'a file now' }, {});
    expect(b).toEqual({ files: { 'calc.py': 'x', 'pyproject.toml': 'p', 'tests/test_calc.py': 't' }, rejectedPaths: ['tests', 'tests/test_calc.py'] });
    // a hidden test outside any test directory: the agent's directory at its path, or a file where its directory goes
    const c = protectTestFiles(pristine, { ...pristine, 'test_hidden.py/x': '', lib: 'f' }, { 'test_hidden.py': 'h', 'lib/test_more.py': 'm' });
    expect(c.rejectedPaths).toEqual(['lib', 'test_hidden.py/x']);
    expect(Object.keys(c.files).sort()).toEqual(['calc.py', 'lib/test_more.py', 'pyproject.toml', 'test_hidden.py', 'tests/test_calc.py']);
  });
  it('two agent files that contradict each other (only a hand-made patch holds them): the one below is dropped', () => {
    expect(protectTestFiles({}, { a: '1', 'a/b': '2', 'a-b': '3' }, {})).toEqual({ files: { a: '1', 'a-b': '3' }, rejectedPaths: ['a/b'] });
  });
  it('a legit nested directory is untouched (and names that are also Object.prototype members are plain names)', () => {
    const patched = { ...pristine, 'pkg/sub/deep/data.txt': 'd', 'pkg/sub/mod.py': 'm', constructor: 'c', 'toString/x': 't' };
    expect(protectTestFiles(pristine, patched, {})).toEqual({ files: patched, rejectedPaths: [] });
  });
});

describe("unescapeListing (sed's l in the C locale)", () => {
  it('gives back the exact bytes; anything sed would not print is refused', () => {
    expect(unescapeListing('f 3 a\\\\b\\nc\\t$d\\303\\251\\377')).toEqual(Buffer.from([...Buffer.from('f 3 a\\b\nc\t$d'), 0xc3, 0xa9, 0xff]));
    expect(unescapeListing('bad\\q')).toBeNull();
    expect(unescapeListing('é')).toBeNull();
  });
});

describe('workspace read-back routes, bwrap (issue 32)', () => {
  let manager: SandboxManager;
  let cleanup: () => Promise<void>;
  beforeAll(() => {
    ({ manager, cleanup } = testManager('agent-readback'));
    ensureBuiltInEnvironment('repo', TEST_STORE);
  });
  afterAll(async () => cleanup?.());

  it('control: the honest fix with a new nested directory reads back and scores 1', async () => {
    const r = await play(manager, [fix, bash('mkdir -p pkg/sub/deep && echo data > pkg/sub/deep/data.txt && printf "X = 1\\n" > pkg/sub/mod.py')]);
    expect(r.grade, r.error).toMatchObject({ status: 'graded', reward: 1, rejectedPaths: [] });
    expect(r.patch).toContain('+++ b/pkg/sub/deep/data.txt');
  }, 60_000);

  it('route 1: a protected file replaced by a directory is rejected, not an infra failure; unsolved it scores 0', async () => {
    const r = await play(manager, [bash('rm pyproject.toml && mkdir pyproject.toml && touch pyproject.toml/x')]);
    expect(r.patch).toContain('diff --git a/pyproject.toml/x b/pyproject.toml/x');
    expect(r.grade, r.grade?.error).toMatchObject({ status: 'graded', reward: 0, rejectedPaths: ['pyproject.toml', 'pyproject.toml/x'] });
    expect(r.grade!.components.rejected_paths).toBe(2);
  }, 60_000);

  it('route 1, the other way round: the test directory replaced by a file', async () => {
    const r = await play(manager, [bash('rm -r tests && echo no > tests')]);
    expect(r.grade, r.grade?.error).toMatchObject({ status: 'graded', reward: 0, rejectedPaths: ['tests', 'tests/test_calc.py'] });
  }, 60_000);

  it('route 1 with the fix: the conflicting paths are rejected and the task is graded as usual (1)', async () => {
    const r = await play(manager, [
      fix,
      bash('rm pyproject.toml && mkdir pyproject.toml && touch pyproject.toml/x && mkdir test_hidden.py && touch test_hidden.py/y'),
    ]);
    expect(r.grade, r.grade?.error).toMatchObject({
      status: 'graded',
      reward: 1,
      rejectedPaths: ['pyproject.toml', 'pyproject.toml/x', 'test_hidden.py/y'],
    });
  }, 60_000);

  it('route 2: a file name that is not UTF-8 scores 0 with the reason naming it, never infra', async () => {
    const r = await play(manager, [fix, bash('touch "$(printf "bad\\377")" && ls')]);
    expect(r.end).toBe('submitted');
    expect(r.patch).toBeNull();
    expect(r.error).toMatch(/the file name "bad\\xff" is not UTF-8/);
    expect(r.grade, outputs(r)).toMatchObject({ status: 'graded', reward: 0, components: { workspace_unreadable: 1 } });
    expect(r.grade!.error).toMatch(/not UTF-8/);
  }, 60_000);

  it('control: UTF-8 names, and names holding what the listing escapes, read back byte for byte', async () => {
    const sb = await manager.acquire({ env: 'repo', limits: episodeSandboxLimits });
    try {
      await writeWorkspace(sb, { 'a.txt': 'a' });
      const made = await sb.exec(
        [
          'sh',
          '-c',
          'mkdir données && printf é > données/résumé.txt && printf 1 > "$(printf "tab\\there\\nnl")" && printf 2 > "back\\\\slash\\$" && printf "#!/bin/sh\\n" > run.sh && chmod +x run.sh',
        ],
        {
          cwd: '/work/repo',
        },
      );
      expect(made.status, made.stderr).toBe('ok');
      expect(await readWorkspace(sb)).toEqual({
        'a.txt': 'a',
        'données/résumé.txt': 'é',
        'tab\there\nnl': '1',
        'back\\slash$': '2',
        'run.sh': { base64: Buffer.from('#!/bin/sh\n').toString('base64'), executable: true },
      });
    } finally {
      await manager.release(sb);
    }
  }, 60_000);
});

const [microvm] = installedRuntimes(['microvm']);
describe.skipIf(!microvm?.available)(
  `workspace read-back on the microVM (issue 32, route 3)${microvm?.available ? '' : ` (skipped: ${microvm?.reason})`}`,
  () => {
    let manager: SandboxManager;
    let cleanup: () => Promise<void>;
    // the default output cap (1 MiB per stream) stays: a 2 MB file is more than one exec's output
    const limits = { memoryMb: 256, diskMb: 64, pids: 64, cpus: 1, timeoutMs: 60_000 };
    beforeAll(() => {
      ({ manager, cleanup } = testManager('agent-readback-vm', { maxIdlePerKey: 1 }));
      ensureBuiltInEnvironment('repo', TEST_STORE);
    });
    afterAll(async () => cleanup?.());
    const twoMb = "python3 -c \"open('data.csv', 'w').write(''.join(f'{i},{i * i}\\n' for i in range(200000)))\"";

    it('a 2.5 MB binary file and a 2 MB text file read back exactly, in pieces within the output cap', async () => {
      const sb = await manager.acquire({ runtime: 'microvm', env: 'repo', limits });
      try {
        expect(sb.spec.limits.outputBytes).toBe(1024 * 1024);
        await writeWorkspace(sb, { 'a.txt': 'a', 'empty.txt': '' });
        const made = await sb.exec(['sh', '-c', `head -c 2600000 /dev/urandom > blob.bin && ${twoMb} && sha256sum blob.bin data.csv`], { cwd: '/work/repo' });
        expect(made.status, made.stderr).toBe('ok');
        const files = await readWorkspace(sb);
        expect(Object.keys(files).sort()).toEqual(['a.txt', 'blob.bin', 'data.csv', 'empty.txt']);
        expect(files['empty.txt']).toBe('');
        const sums = Object.fromEntries(
          made.stdout
            .trim()
            .split('\n')
            .map((l) => l.split(/\s+/).reverse()),
        );
        for (const f of ['blob.bin', 'data.csv']) expect(createHash('sha256').update(fileBytes(files[f]!)).digest('hex'), f).toBe(sums[f]);
        expect(fileBytes(files['blob.bin']!).length).toBe(2_600_000);
      } finally {
        await manager.release(sb);
      }
    }, 240_000); // the first test boots the VM: under TCG on a loaded host

    it('control: the honest fix plus a 2 MB data file reads back and scores 1', async () => {
      const r = await play(manager, [fix, bash(twoMb)], { runtime: 'microvm', limits });
      expect(r.runtime).toBe('microvm');
      expect(r.grade, r.error ?? r.grade?.error).toMatchObject({ status: 'graded', reward: 1 });
      const after = applyWorkspacePatch(py.workspace, r.patch!);
      expect(fileBytes(after['data.csv']!).length).toBeGreaterThan(2_000_000);
    }, 180_000);

    it('route 3: the unsolved task with a 2 MB file is graded 0 on its tests, not masked', async () => {
      const r = await play(manager, [bash(twoMb)], { runtime: 'microvm', limits });
      expect(r.end, r.error).toBe('submitted');
      expect(r.grade, r.error ?? r.grade?.error).toMatchObject({ status: 'graded', reward: 0 });
      expect(r.grade!.tests.find((t) => t.name === 'tests/test_calc.py::test_add')).toMatchObject({ passed: false, outcome: 'failed' });
    }, 180_000);

    it("route 3, a read the guest refuses (a file the agent made unreadable): the agent's 0 with the reason", async () => {
      const r = await play(manager, [fix, bash('echo secret > locked.txt && chmod 000 locked.txt')], { runtime: 'microvm', limits });
      expect(r.end, r.error).toBe('submitted');
      expect(r.error).toMatch(/the guest could not read locked\.txt: Permission denied/);
      expect(r.grade, outputs(r)).toMatchObject({ status: 'graded', reward: 0, components: { workspace_unreadable: 1 } });
    }, 180_000);
  },
);
