import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CrucibleRepoTaskLine, WorkspaceFiles } from '@/core/repo-tasks';
import { childEnv } from '@/core/settings';

/**
 * Checks a repository task on the host, without sandboxes, while a task is being written:
 * the untouched workspace plus hidden tests fails every FAIL_TO_PASS test and passes every
 * PASS_TO_PASS test; with the gold patch applied (`git apply`) all of them pass. The real
 * grader (lib/agent/grade) does the same in clean sandboxes; this is the author's quick loop.
 */

export type HostCheck = { id: string; ok: boolean; problems: string[]; ms: number };

const NODE_REPORTER = `export default async function* report(source) {
  const pending = [];
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    const d = ev.data;
    // node reports a test after its children: adopt the finished ones one level deeper
    const children = [];
    while (pending.length && pending[pending.length - 1].nesting === d.nesting + 1) children.unshift(pending.pop());
    pending.push({ name: d.name, nesting: d.nesting, file: d.file, passed: ev.type === 'test:pass' && !d.skip && !d.todo, suite: d.details?.type === 'suite', children });
    if (d.nesting === 0) {
      const leaves = [];
      const walk = (n, prefix) => {
        const full = prefix ? prefix + ' > ' + n.name : n.name;
        if (n.children.length === 0 && !n.suite) leaves.push({ file: n.file, name: full, passed: n.passed });
        for (const c of n.children) walk(c, full);
      };
      walk(pending.pop(), '');
      for (const l of leaves) yield JSON.stringify(l) + '\\n';
    }
  }
}
`;

function writeTree(root: string, files: WorkspaceFiles) {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    if (typeof content === 'string') fs.writeFileSync(abs, content);
    else fs.writeFileSync(abs, Buffer.from(content.base64, 'base64'), { mode: content.executable ? 0o755 : 0o644 });
  }
}

/** Run the task's tests in `root`; test id → passed. */
function runTests(task: CrucibleRepoTaskLine, root: string, scratch: string): Map<string, boolean> {
  const results = new Map<string, boolean>();
  const env = childEnv({ PYTHONDONTWRITEBYTECODE: '1', NODE_OPTIONS: '' });
  if (task.language === 'python') {
    const r = spawnSync('python3', ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rA', '--color=no'], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    for (const line of r.stdout.split('\n')) {
      const m = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+::\S+)/.exec(line);
      if (m) results.set(m[2]!, m[1] === 'PASSED');
    }
  } else {
    const reporter = path.join(scratch, 'reporter.mjs');
    fs.writeFileSync(reporter, NODE_REPORTER);
    const r = spawnSync('node', ['--test', `--test-reporter=${reporter}`], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    for (const line of r.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const t = JSON.parse(line) as { file: string; name: string; passed: boolean };
      results.set(`${path.relative(root, t.file)}::${t.name}`, t.passed);
    }
  }
  return results;
}

export function checkRepoTaskOnHost(task: CrucibleRepoTaskLine): HostCheck {
  const started = Date.now();
  const problems: string[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `repo-check-${task.id}-`));
  try {
    if (!('files' in task.workspace)) return { id: task.id, ok: false, problems: ['the host check reads inline workspaces only'], ms: 0 };
    const prepare = (name: string) => {
      const root = path.join(scratch, name);
      fs.mkdirSync(root);
      writeTree(root, (task.workspace as { files: WorkspaceFiles }).files);
      return root;
    };
    const before = prepare('before');
    writeTree(before, task.hidden_tests);
    const r0 = runTests(task, before, scratch);
    for (const id of task.FAIL_TO_PASS) if (r0.get(id) !== false) problems.push(`untouched: FAIL_TO_PASS ${id} ${r0.has(id) ? 'passes' : 'did not run'}`);
    for (const id of task.PASS_TO_PASS) if (r0.get(id) !== true) problems.push(`untouched: PASS_TO_PASS ${id} ${r0.has(id) ? 'fails' : 'did not run'}`);

    const after = prepare('after');
    if (!task.gold_patch) problems.push('no gold patch');
    else {
      const patchFile = path.join(scratch, 'gold.patch');
      fs.writeFileSync(patchFile, task.gold_patch);
      const a = spawnSync('git', ['apply', '--whitespace=nowarn', patchFile], { cwd: after, encoding: 'utf8' });
      if (a.status !== 0) problems.push(`gold patch does not apply: ${a.stderr.trim()}`);
    }
    writeTree(after, task.hidden_tests);
    const r1 = runTests(task, after, scratch);
    for (const id of [...task.FAIL_TO_PASS, ...task.PASS_TO_PASS])
      if (r1.get(id) !== true) problems.push(`gold: ${id} ${r1.has(id) ? 'fails' : 'did not run'}`);
    const listed = new Set([...task.FAIL_TO_PASS, ...task.PASS_TO_PASS]);
    for (const [id, passed] of r1) if (!passed && !listed.has(id)) problems.push(`gold: ${id} (not listed) fails`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return { id: task.id, ok: problems.length === 0, problems, ms: Date.now() - started };
}
