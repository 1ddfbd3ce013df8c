import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { crucibleRepoTaskLine, type CrucibleRepoTaskLine } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { ensureBuiltInEnvironment, ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { gradeRepoTask, GRADE_WORKSPACE_DIR, testFilesOf } from '@/lib/agent/grade/grade-repo-task';
import { extraPythonPath } from '@/lib/agent/grade/pytest-options';
import { loadRealCorpus, REAL_CORPUS_DIR } from '@/lib/agent/suite/real-corpus';
import { ScriptedPolicy } from '@/lib/agent/policies/scripted';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import { defaultToolLimits, executeToolCall } from '@/lib/agent/tools/execute-tool';
import { formatToolCall, parseToolCalls } from '@/lib/agent/tools/call-formats/hermes';
import { loadRepoSuite } from '@/lib/agent/suite/repo-suite';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { applyWorkspacePatch } from '@/lib/agent/workspace/workspace-diff';
import { fileBytes } from '@/lib/agent/workspace/workspace-file';
import { runAgentEpisode } from '@/lib/agent/episode/run-episode';
import { SANDBOX_WORKSPACE_DIR, writeWorkspace } from '@/lib/agent/episode/sandbox-workspace';
import { envStoreDir } from '@/db/open-database';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * `npm run bench -- agent [--runs N] [--episodes N] [--concurrency 1,2,4] [--grades N] [--corpus-grades N] [--runtime bwrap] [--json]`
 * A tool call (parsed from its `<tool_call>` text, validated, executed, its output capped)
 * against a plain exec of the same command in the same sandbox, interleaved; then whole
 * scripted episodes (read, edit, run the test, submit; no grading) per second; then grading:
 * the grader on a built-in task's gold patch against a plain test run of the same files in
 * a fresh sandbox (no runner, report or integrity checks), interleaved, per language; and
 * the same for every instance of the real-code corpus (tasks/real-corpus), `--corpus-grades`
 * times each (0: none), with the median ratio over the instances.
 */
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const r2 = (n: number) => Math.round(n * 100) / 100;

const LINE = {
  id: 'bench-add',
  language: 'python',
  problem_statement: 'add() subtracts; make it add.',
  workspace: { files: { 'calc.py': 'def add(a, b):\n    return a - b\n', 'check.py': 'from calc import add\nassert add(2, 3) == 5\nprint("ok")\n' } },
  FAIL_TO_PASS: ['check.py::test_add'],
};
const SCRIPT = [
  { name: 'read_file', arguments: { path: 'calc.py' } },
  { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } },
  { name: 'bash', arguments: { command: 'python3 check.py' } },
  { name: 'submit', arguments: {} },
];

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string' },
      episodes: { type: 'string' },
      concurrency: { type: 'string' },
      grades: { type: 'string' },
      'corpus-grades': { type: 'string' },
      runtime: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const runs = Number(values.runs ?? 200);
  const episodes = Number(values.episodes ?? 20);
  const grades = Number(values.grades ?? 7);
  const corpusGrades = Number(values['corpus-grades'] ?? 3);
  const levels = (values.concurrency ?? '1,2,4').split(',').map(Number);
  const runtime = values.runtime ?? 'bwrap';
  const dataDir = mkdtempSync('/tmp/crucible-bench-agent-');
  chmodSync(dataDir, 0o755);
  const manager = new SandboxManager({
    dataDir,
    storeDir: envStoreDir(),
    runtime: runtimeOptions(settings()),
    capacity: { cpus: 64, memoryMb: 1 << 20, diskMb: 1 << 20 },
    maxIdlePerKey: 16,
  });
  ensureDefaultEnvironment(manager.storeDir);
  ensureBuiltInEnvironment('repo', manager.storeDir);
  const task = { ...resolveRepoTask(crucibleRepoTaskLine.parse(LINE), { baseDir: '/tmp' }), environment: 'default' };
  const out: Record<string, unknown> = { runtime, runs, episodes, load: (await import('node:os')).loadavg().map(r2) };
  try {
    // tool-call round trips vs plain execs, interleaved in one sandbox
    const sb = await manager.acquire({ runtime, env: 'default', limits: episodeSandboxLimits });
    await writeWorkspace(sb, task.workspace);
    const ws = SANDBOX_WORKSPACE_DIR;
    const ctx = { sandbox: sb, workspaceDir: ws, limits: defaultToolLimits };
    const pairs: { name: string; tool: string; plain: string[] }[] = [
      { name: 'bash true', tool: formatToolCall('bash', { command: 'true' }), plain: ['sh', '-c', 'true'] },
      { name: 'read a file', tool: formatToolCall('read_file', { path: 'calc.py' }), plain: ['cat', `${ws}/calc.py`] },
      // an edit back and forth (the tool one way, sed the other), so every run changes the file
      {
        name: 'edit (str_replace vs sed -i)',
        tool: formatToolCall('str_replace', { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' }),
        plain: ['sed', '-i', 's/a + b/a - b/', `${ws}/calc.py`],
      },
    ];
    const roundTrips: Record<string, unknown> = {};
    for (const p of pairs) {
      const tool: number[] = [];
      const plain: number[] = [];
      for (let i = 0; i < runs + 5; i++) {
        const text = p.tool;
        let t = performance.now();
        const rec = await executeToolCall(ctx, parseToolCalls(text).calls[0]!);
        const dt = performance.now() - t;
        if (rec.error) throw new Error(`${p.name}: ${rec.error}`);
        t = performance.now();
        const r = await sb.exec(p.plain, { cwd: ws });
        const dp = performance.now() - t;
        if (r.status !== 'ok') throw new Error(`${p.name} (plain): ${r.status} ${r.stderr}`);
        if (i >= 5) {
          tool.push(dt);
          plain.push(dp);
        }
      }
      roundTrips[p.name] = {
        toolP50Ms: r2(pct(tool, 50)),
        toolP99Ms: r2(pct(tool, 99)),
        plainP50Ms: r2(pct(plain, 50)),
        plainP99Ms: r2(pct(plain, 99)),
        ratioP50: r2(pct(tool, 50) / pct(plain, 50)),
      };
    }
    await manager.release(sb);
    out.roundTrips = roundTrips;
    // whole scripted episodes per second
    const rates: Record<string, unknown> = {};
    for (const c of levels) {
      let next = 0;
      const t0 = performance.now();
      const durations: number[] = [];
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next++ < episodes) {
            const r = await runAgentEpisode({
              manager,
              task,
              runtime,
              env: 'default',
              limits: episodeSandboxLimits,
              policy: new ScriptedPolicy(SCRIPT),
              renderer: new ByteTemplateRenderer(),
            });
            if (r.end !== 'submitted' || !r.patch) throw new Error(`episode ended ${r.end}: ${r.error ?? 'no patch'}`);
            durations.push(r.durationMs);
          }
        }),
      );
      const s = (performance.now() - t0) / 1000;
      rates[`concurrency ${c}`] = { episodesPerS: r2(episodes / s), episodeP50Ms: r2(pct(durations, 50)), episodeP99Ms: r2(pct(durations, 99)) };
    }
    out.episodes = rates;
    out.grading = await benchGrading(manager, runtime, grades, corpusGrades);
  } finally {
    await manager.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (values.json) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(`agent bench (${runtime}, ${runs} runs each, load ${(out.load as number[]).join(' ')})`);
    for (const [k, v] of Object.entries(out.roundTrips as Record<string, Record<string, number>>))
      console.log(
        `  ${k.padEnd(30)} tool p50 ${v.toolP50Ms} ms (p99 ${v.toolP99Ms})  plain exec p50 ${v.plainP50Ms} ms (p99 ${v.plainP99Ms})  ratio ${v.ratioP50}×`,
      );
    for (const [k, v] of Object.entries(out.episodes as Record<string, Record<string, number>>))
      console.log(`  episodes, ${k}: ${v.episodesPerS}/s (episode p50 ${v.episodeP50Ms} ms, p99 ${v.episodeP99Ms})`);
    for (const [k, v] of Object.entries(out.grading as Record<string, Record<string, number | string>>))
      if ('medianRatio' in v)
        console.log(`  grading ${k}: ${v.instances} instances, grader/plain median ratio ${v.medianRatio}× (${v.minRatio}–${v.maxRatio}×)`);
      else
        console.log(
          `  grading ${k.padEnd(46)} grader p50 ${v.graderP50Ms} ms (${v.graderMinMs}–${v.graderMaxMs})  plain test run p50 ${v.plainP50Ms} ms (${v.plainMinMs}–${v.plainMaxMs})  ratio ${v.ratioP50}×`,
        );
  }
  return 0;
}

/**
 * One grade of a built-in task's gold patch per language, against the reference: the same
 * files (patched workspace and hidden tests) in a fresh sandbox of the same environment,
 * the test files run by plain `pytest -q` / `node --test`, the sandbox destroyed. The
 * difference is the grader's own work: its runner, the signed report, the integrity checks.
 */
async function benchGrading(manager: SandboxManager, runtime: string, n: number, corpusRuns: number): Promise<Record<string, unknown>> {
  const suite = loadRepoSuite();
  const out: Record<string, unknown> = {};
  const jobs: { key: string; line: CrucibleRepoTaskLine; runs: number }[] = [];
  for (const language of ['python', 'javascript'] as const) {
    const line = suite.find((l) => l.language === language && l.gold_patch);
    if (!line) throw new Error(`the built-in repository suite has no ${language} task with a gold patch`);
    jobs.push({ key: `${language} (${line.id})`, line, runs: n });
  }
  // the real-code corpus (tasks/real-corpus): upstream fixes of real libraries, every instance
  if (corpusRuns > 0 && existsSync(REAL_CORPUS_DIR)) for (const { line } of loadRealCorpus()) jobs.push({ key: `corpus ${line.id}`, line, runs: corpusRuns });
  const ratios: number[] = [];
  for (const { key, line, runs } of jobs) {
    const task = resolveRepoTask(line, { baseDir: '/' });
    const files = { ...applyWorkspacePatch(task.workspace, task.goldPatch!), ...task.hiddenTests };
    const testFiles = testFilesOf(task);
    const plainCmd =
      task.language === 'python'
        ? ['/usr/bin/python3', '-B', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...testFiles]
        : ['/usr/bin/node', '--test', ...testFiles];
    // a src layout's package as an installed one would be (the grader does the same)
    const plainEnv: Record<string, string> = { NO_COLOR: '1', ...(extraPythonPath(files).length ? { PYTHONPATH: `${GRADE_WORKSPACE_DIR}/src` } : {}) };
    const grader: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      let t = performance.now();
      const g = await gradeRepoTask(manager, task, task.goldPatch!, { runtime });
      const dg = performance.now() - t;
      if (g.reward !== 1) throw new Error(`${task.id}: the gold patch graded ${g.reward} (${g.error ?? g.status})`);
      t = performance.now();
      const sb = await manager.acquire({ runtime, env: task.environment, limits: { timeoutMs: 120_000 }, fresh: true });
      try {
        for (const [p, f] of Object.entries(files)) sb.putFile(`${GRADE_WORKSPACE_DIR}/${p}`, fileBytes(f), 0o644);
        const r = await sb.exec(plainCmd, { cwd: GRADE_WORKSPACE_DIR, env: plainEnv });
        // a test file may hold tests outside the task's lists that fail in this environment: the reference is the run, not its verdict
        if (r.status !== 'ok' && r.status !== 'nonzero_exit')
          throw new Error(`${task.id} (plain test run): ${r.status}, exit ${r.exitCode}: ${r.stdout.slice(-500)}${r.stderr.slice(-500)}`);
      } finally {
        await manager.destroy(sb);
      }
      const dp = performance.now() - t;
      // the first of each is a warm-up (page cache, the environment's first start)
      if (i > 0) {
        grader.push(dg);
        plain.push(dp);
      }
    }
    ratios.push(pct(grader, 50) / pct(plain, 50));
    out[key] = {
      graderP50Ms: Math.round(pct(grader, 50)),
      graderMinMs: Math.round(Math.min(...grader)),
      graderMaxMs: Math.round(Math.max(...grader)),
      plainP50Ms: Math.round(pct(plain, 50)),
      plainMinMs: Math.round(Math.min(...plain)),
      plainMaxMs: Math.round(Math.max(...plain)),
      ratioP50: r2(pct(grader, 50) / pct(plain, 50)),
    };
  }
  const corpus = ratios.slice(2);
  if (corpus.length)
    out['corpus, all instances'] = {
      instances: corpus.length,
      medianRatio: r2(pct(corpus, 50)),
      minRatio: r2(Math.min(...corpus)),
      maxRatio: r2(Math.max(...corpus)),
    };
  return out;
}
