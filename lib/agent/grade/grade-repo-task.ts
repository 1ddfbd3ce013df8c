import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RepoGrade, RepoTask, RepoTestResult, WorkspaceFiles } from '@/core/repo-tasks';
import type { ExecContext, SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import type { ExecResult, LimitsInput } from '@/lib/sandbox/types';
import { cpuVerdict } from '@/lib/sandbox/limits/cpu-verdict';
import { applyWorkspacePatch } from '../workspace/workspace-diff';
import { fileBytes, fileExecutable } from '../workspace/workspace-file';
import { isProtectedPath, protectTestFiles } from './protected-paths';
import { verifyReport, type TestReport } from './report';
import { hasTypeScript, TS_HOOK_FILES } from './typescript-hooks';
import { repoReward, type RepoRewardWeights } from './repo-reward';
import { extraPythonPath, pytestArgs } from './pytest-options';
import { agentLines, diffSignals } from './diff-signals';
import { sourcesBlob, taskCodeFiles, withPlaceholders } from './task-code';

/**
 * Grading a repository task (docs/agents.md#grading): the agent's patch on a fresh copy of the
 * pristine workspace, test files and configuration restored, hidden tests added, in a newly
 * created sandbox; the tests run under the grader's own command and runner, and per-test
 * results come only from the runner's authenticated report.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
/** The pytest runner is one program kept as parts (pytest-runner/NN-*.py), joined in name order. */
function pytestRunner(): Buffer {
  const dir = path.join(here, 'pytest-runner');
  const parts = readdirSync(dir)
    .filter((f) => /^\d\d-[a-z-]+\.py$/.test(f))
    .sort();
  return Buffer.from(parts.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n\n'));
}
const RUNNERS = { python: pytestRunner(), javascript: readFileSync(path.join(here, 'node-reporter.mjs')) };

/** Names this grader in every reward it produces (like the I/O harness's HARNESS_VERSION): the runners' content decides the verdicts. */
export const REPO_GRADER_VERSION = `repo-grader-1+${Object.values(TS_HOOK_FILES)
  .reduce((h, b) => h.update(b), createHash('sha256').update(RUNNERS.python).update(RUNNERS.javascript))
  .digest('hex')
  .slice(0, 12)}`;

/** Where the workspace lives in the grading sandbox; test ids are relative to it. */
export const GRADE_WORKSPACE_DIR = '/work/repo';

export type RepoGradeOptions = {
  runtime?: string;
  limits?: LimitsInput;
  /**
   * The test run's CPU budget (default 120 s): what decides the candidate's failure. The
   * runner's process is stopped there (RLIMIT_CPU); past it, or blocked past the wall ceiling,
   * tests without a verified result fail.
   */
  testCpuMs?: number;
  /**
   * The test run's wall-clock safety net (default repoCeilingMs(testCpuMs), 240 s). Reached
   * while the run mostly waited for a CPU (a busy host), the grade is an infrastructure
   * failure, never the candidate's 0 (lib/sandbox/limits/cpu-verdict.ts).
   */
  testTimeoutMs?: number;
  /** the task's setup command's CPU budget (default 120 s; its wall ceiling repoCeilingMs of it) */
  setupCpuMs?: number;
  weights?: Partial<RepoRewardWeights>;
  context?: ExecContext;
};

type Attempt = { grade: RepoGrade } | { infra: string; runtime?: string; envHash?: string };

function emptyGrade(task: RepoTask, t0: number): RepoGrade {
  return {
    status: 'graded',
    reward: 0,
    components: {},
    tests: [],
    patchApplied: false,
    rejectedPaths: [],
    runtime: '',
    envHash: '',
    workspaceSha256: task.workspaceSha256,
    durationMs: performance.now() - t0,
  };
}

/** The test files the expected ids live in, in first-seen order. */
export function testFilesOf(task: RepoTask): string[] {
  return [...new Set([...task.failToPass, ...task.passToPass].map((id) => id.slice(0, id.indexOf('::'))))];
}

function allFailed(task: RepoTask, outcome: RepoTestResult['outcome'], detail: string): { f2p: RepoTestResult[]; p2p: RepoTestResult[] } {
  const mk = (name: string): RepoTestResult => ({ name, passed: false, outcome, detail });
  return { f2p: task.failToPass.map(mk), p2p: task.passToPass.map(mk) };
}

function fromReport(task: RepoTask, report: TestReport): { f2p: RepoTestResult[]; p2p: RepoTestResult[] } {
  const mk = (name: string): RepoTestResult => {
    const outcome = report.results[name];
    if (outcome === undefined) return { name, passed: false, outcome: 'missing', detail: 'not in the test report (not collected, or the run ended before it)' };
    return { name, passed: outcome === 'passed', outcome };
  };
  return { f2p: task.failToPass.map(mk), p2p: task.passToPass.map(mk) };
}

function pythonCommand(dir: string, files: WorkspaceFiles, testFiles: string[]): { cmd: string[]; args: string[] } {
  return { cmd: ['/usr/bin/python3', '-I', '-B', `${dir}/runner.py`], args: pytestArgs(files, GRADE_WORKSPACE_DIR, testFiles) };
}

/**
 * Node's permission model, with every file, child process and worker still allowed: what it
 * takes away is the inspector (`node:inspector` sessions, `inspector.open`, SIGUSR1 /
 * `process._debugProcess`, a worker's `connectToMainThread`) and `process.binding`, through which
 * the code under test could read the reporter's module scope, where the report key lives.
 */
const NODE_PERMISSIONS = ['--experimental-permission', '--allow-fs-read=*', '--allow-fs-write=*', '--allow-child-process', '--allow-worker'];

function nodeCommand(dir: string): string[] {
  const reporter = `${dir}/reporter.mjs`;
  return [
    '/usr/bin/node',
    ...NODE_PERMISSIONS,
    // the reporter registers the grader's module hooks (with the task's files from stdin), then refuses module.register to the code under test
    `--import=${reporter}`,
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stderr',
    `${dir}/entry.mjs`,
  ];
}

function nodeEntry(files: string[]): string {
  // each test file by absolute URL, one after another, loaded by the reporter: a file that fails
  // to load is reported and its tests count as failed (whatever tests claim to be from it)
  const urls = files.map((f) => `file://${GRADE_WORKSPACE_DIR}/${f.split('/').map(encodeURIComponent).join('/')}`);
  return `import { loadTestFiles } from './reporter.mjs';\nawait loadTestFiles(${JSON.stringify(urls)});\n`;
}

const infraStatuses = new Set<ExecResult['status']>(['sandbox_error', 'env_mismatch']);

/**
 * The report file. A microVM's scratch is the guest's own disk, which getFile cannot read, so
 * there it is read through the guest (base64 on stdout; the MAC, not the channel, is what
 * makes it trustworthy, and every process of the test run is gone by then).
 */
async function readReport(sb: Sandbox, file: string): Promise<Buffer> {
  if (sb.runtimeName !== 'microvm') return sb.getFile(file);
  const r = await sb.exec(
    ['/usr/bin/python3', '-I', '-c', 'import base64,sys;sys.stdout.write(base64.b64encode(open(sys.argv[1],"rb").read()).decode())', file],
    {
      timeoutMs: 60_000,
    },
  );
  if (r.status !== 'ok' || r.stdoutTruncated) throw new Error(`cannot read the report from the microVM: ${r.status} ${r.error ?? r.stderr.trim().slice(-500)}`);
  return Buffer.from(r.stdout, 'base64');
}

/**
 * A grading run's wall ceiling for a CPU budget: twice the budget, at least the budget plus a
 * minute. A spinning test is stopped at its budget by the kernel, so the ceiling only decides
 * for a blocked one (a sleeper, a deadlock: its 0) and for a busy host (infra); a 10× ceiling,
 * as the I/O harness's per test, would let one deadlocked test hold a grading slot 20 minutes.
 */
export function repoCeilingMs(cpuMs: number): number {
  return Math.max(2 * cpuMs, cpuMs + 60_000);
}

/**
 * A wall timeout on a busy host is the host's, never the candidate's (cpu-verdict.ts): the
 * reason to mask the grade, or null when the candidate's time is its own.
 */
function contended(what: string, r: ExecResult, cpuLimitMs: number, ceilingMs: number): string | null {
  if (r.status !== 'timeout') return null;
  const v = cpuVerdict({ wallMs: r.durationMs, cpuMs: r.usage.cpuMs, cpuWaitMs: r.usage.cpuWaitMs, cpuLimitMs, ceilingMs, timedOut: true });
  if (v !== 'contended') return null;
  return `the host was too busy: ${what} reached its ${ceilingMs} ms wall ceiling having used ${r.usage.cpuMs} of its ${cpuLimitMs} ms CPU budget and waited ${r.usage.cpuWaitMs} ms for a CPU`;
}

async function attempt(manager: SandboxManager, task: RepoTask, patch: string, opts: RepoGradeOptions, t0: number): Promise<Attempt> {
  const grade = emptyGrade(task, t0);
  const done = (f2p: RepoTestResult[], p2p: RepoTestResult[], extra: Partial<RepoGrade> & { tampered?: number } = {}): Attempt => {
    const { tampered, ...rest } = extra;
    const r = repoReward(f2p, p2p, opts.weights);
    const suspect = grade.suspect ?? [];
    return {
      grade: {
        ...grade,
        ...rest,
        reward: r.reward,
        tests: [...f2p, ...p2p],
        components: {
          ...r.components,
          patch_applied: grade.patchApplied ? 1 : 0,
          tampered: tampered ?? 0,
          rejected_paths: grade.rejectedPaths.length,
          suspect: suspect.length ? 1 : 0,
        },
        durationMs: performance.now() - t0,
      },
    };
  };
  // the agent's doing from here on (its patch, its setup code): graded 0 with the reason, never masked
  const agents = (why: string, outcome: RepoTestResult['outcome'] = 'error'): Attempt => {
    const { f2p, p2p } = allFailed(task, outcome, why);
    return done(f2p, p2p, { error: why });
  };

  // 1. the agent's patch on the pristine workspace
  let patched;
  try {
    patched = applyWorkspacePatch(task.workspace, patch);
  } catch (e) {
    const { f2p, p2p } = allFailed(task, 'failed', 'the patch did not apply');
    return done(f2p, p2p, { error: `the patch does not apply: ${(e as Error).message}` });
  }
  grade.patchApplied = true;
  const testFiles = testFilesOf(task);
  const { files, rejectedPaths } = protectTestFiles(task.workspace, patched, task.hiddenTests, testFiles);
  grade.rejectedPaths = rejectedPaths;
  // layer 4: what in the patch reaches for the tests or the grader holds the grade for review
  const signals = diffSignals(patch, task.hiddenTests, testFiles);
  if (signals.length) grade.suspect = signals;
  // layer 1: the task's own code files come from the runner's copy, and the hidden ones lie in the workspace as placeholders only
  const taskFiles = taskCodeFiles(files, task.hiddenTests, testFiles, task.language);
  // the hidden ones (the agent never saw them: the answers); the visible test files it has
  // read all episode stay as they are, for tests that read their own source from disk (a C
  // traceback, boltons' tbutils tests)
  const onDisk = withPlaceholders(
    files,
    taskFiles.filter((p) => Object.hasOwn(task.hiddenTests, p)),
  );

  // 2. a newly created sandbox, destroyed afterwards whatever happens
  const testCpuMs = opts.testCpuMs ?? 120_000;
  const testTimeoutMs = opts.testTimeoutMs ?? repoCeilingMs(testCpuMs);
  const setupCpuMs = opts.setupCpuMs ?? 120_000;
  let sb: Sandbox;
  try {
    sb = await manager.acquire({ runtime: opts.runtime, env: task.environment, limits: { timeoutMs: testTimeoutMs, ...opts.limits }, fresh: true });
  } catch (e) {
    return { infra: `no grading sandbox: ${(e as Error).message}` };
  }
  grade.runtime = sb.runtimeName;
  grade.envHash = sb.spec.env.hash;
  const at = () => ({ runtime: grade.runtime, envHash: grade.envHash });
  try {
    const put = (fs: WorkspaceFiles) => {
      for (const [p, f] of Object.entries(fs)) sb.putFile(`${GRADE_WORKSPACE_DIR}/${p}`, fileBytes(f), fileExecutable(f) ? 0o755 : 0o644);
    };
    try {
      put(onDisk);
    } catch (e) {
      // the files are the agent's patch on the task's workspace: one that cannot be laid out (a
      // file where the task has a directory, a name the filesystem refuses) is the agent's 0
      return agents(`the patched workspace cannot be written: ${(e as Error).message}`);
    }
    const exec = async (cmd: string[], o: Parameters<Sandbox['exec']>[1]) => {
      const r = await sb.exec(cmd, { cwd: GRADE_WORKSPACE_DIR, ...o });
      grade.runtime = r.runtime;
      if (r.envHash) grade.envHash = r.envHash;
      return r;
    };

    // 3. setup (may run the agent's code), then the task's test files put back over whatever it did
    if (task.setup) {
      const r = await exec(['/bin/sh', '-c', task.setup], { timeoutMs: repoCeilingMs(setupCpuMs) });
      if (infraStatuses.has(r.status)) return { ...at(), infra: `setup: ${r.status}: ${r.error ?? ''}` };
      const busy = contended('setup', r, setupCpuMs, repoCeilingMs(setupCpuMs));
      if (busy) return { ...at(), infra: busy };
      if (r.status !== 'ok') return agents(`setup failed (${r.status}, exit ${r.exitCode}): ${r.stderr.slice(-2000)}`);
      try {
        put(Object.fromEntries(Object.entries(onDisk).filter(([p]) => isProtectedPath(p, task.hiddenTests, testFiles))));
      } catch (e) {
        return agents(`after setup (which runs the agent's code), the task's files cannot be restored: ${(e as Error).message}`);
      }
    }

    // 4. the grader's runner, outside the workspace under an unguessable directory
    const nonce = randomBytes(16).toString('hex');
    const key = randomBytes(32);
    const dir = `/tmp/.crucible-grade-${nonce}`;
    // the runner creates it (exclusive) before any workspace code runs; its name is never shown to that code's files
    const report = `/tmp/.crucible-report-${randomBytes(16).toString('hex')}`;
    let cmd: string[];
    let job: Record<string, unknown> = { nonce, key: key.toString('hex'), report, workspace: GRADE_WORKSPACE_DIR };
    let stdin: Buffer;
    try {
      if (task.language === 'python') {
        const c = pythonCommand(dir, files, testFiles);
        sb.putFile(`${dir}/runner.py`, RUNNERS.python, 0o444);
        const conftests = Object.keys(files).filter((p) => p === 'conftest.py' || p.endsWith('/conftest.py'));
        // the task's own Python files, from the job: the runner compiles them before any workspace code runs and lets no other code run under their names
        const sources = Object.fromEntries(taskFiles.map((p) => [p, fileBytes(files[p]!).toString('base64')]));
        // the repository's Python files the agent left as they were: frames they ask for are the library's business
        const { unchanged, changedLines } = agentLines(task.workspace, files, taskFiles);
        job = {
          ...job,
          args: c.args,
          conftests,
          sources,
          unchanged,
          changed_lines: changedLines,
          pythonpath: extraPythonPath(files),
          cpu_seconds: Math.max(1, Math.ceil(testCpuMs / 1000)),
        };
        cmd = c.cmd;
        stdin = Buffer.from(`${JSON.stringify(job)}\n`);
      } else {
        sb.putFile(`${dir}/reporter.mjs`, RUNNERS.javascript, 0o444);
        sb.putFile(`${dir}/entry.mjs`, nodeEntry(testFiles), 0o444);
        const typescript = hasTypeScript(files);
        for (const [name, bytes] of Object.entries(TS_HOOK_FILES)) if (typescript || name === 'grader-hooks.mjs') sb.putFile(`${dir}/${name}`, bytes, 0o444);
        // the reporter checks that the task's tests run under the task's tests only, and hands the task's files (stdin, after the job) to the hooks
        job = { ...job, taskFiles, typescript };
        cmd = nodeCommand(dir);
        stdin = Buffer.concat([Buffer.from(`${JSON.stringify(job)}\n`), sourcesBlob(files, taskFiles, GRADE_WORKSPACE_DIR)]);
      }
    } catch (e) {
      // the grader's own files go in /tmp: only the agent's setup code (a full disk) can stop that
      const why = `cannot write the grader's runner: ${(e as Error).message}`;
      if (task.setup) return agents(`${why} (after the task's setup ran the agent's code)`);
      throw e;
    }
    const r = await exec(cmd, {
      stdin,
      timeoutMs: testTimeoutMs,
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1', NODE_OPTIONS: '', NO_COLOR: '1' },
    });
    if (infraStatuses.has(r.status)) return { ...at(), infra: `test run: ${r.status}: ${r.error ?? ''}` };
    const busy = contended('the test run', r, testCpuMs, testTimeoutMs);
    if (busy) return { ...at(), infra: busy };
    // before READY nothing from the workspace had run, unless a setup ran the agent's code first
    if (!r.stdout.startsWith(`CRUCIBLE-GRADE-READY ${nonce}\n`)) {
      const why = `the grader's test runner failed before the tests started (${r.status}, exit ${r.exitCode}): ${r.stderr.slice(-2000)}`;
      return task.setup ? agents(`${why} (after the task's setup ran the agent's code)`) : { infra: why };
    }
    let raw: Buffer;
    try {
      raw = await readReport(sb, report);
      // the runner creates it at start and writes it once at the end: empty is no report
      if (raw.length === 0) throw new Error('the report is empty (the run ended before the runner wrote it)');
    } catch (e) {
      const why =
        r.status === 'timeout'
          ? r.usage.cpuMs >= testCpuMs
            ? `the test run used its CPU budget (${r.usage.cpuMs} of ${testCpuMs} ms)`
            : `the test run was blocked past its wall ceiling (${testTimeoutMs} ms, ${r.usage.cpuMs} ms of CPU)`
          : r.signal === 'SIGXCPU' || r.signal === 'SIGKILL'
            ? `the test process was stopped (${r.signal}) after ${r.usage.cpuMs} ms of CPU (its budget: ${testCpuMs} ms)`
            : `the test process ended without a report (${r.status}, exit ${r.exitCode})`;
      const { f2p, p2p } = allFailed(task, 'missing', why);
      return done(f2p, p2p, { error: `${why}: ${(e as Error).message}` });
    }
    const v = verifyReport(raw, key, nonce);
    if (!v.ok) {
      const { f2p, p2p } = allFailed(task, 'failed', v.why);
      return done(f2p, p2p, { error: `report rejected: ${v.why}`, tampered: 1 });
    }
    if (v.report.suspect.length) grade.suspect = [...(grade.suspect ?? []), ...v.report.suspect];
    if (v.report.tampered.length > 0) {
      const why = `the test process was tampered with: ${v.report.tampered.join('; ')}`;
      const { f2p, p2p } = allFailed(task, 'failed', why);
      return done(f2p, p2p, { error: why, tampered: 1 });
    }
    const { f2p, p2p } = fromReport(task, v.report);
    return done(f2p, p2p);
  } finally {
    await manager.destroy(sb);
  }
}

/**
 * Grade an agent's patch (a unified diff against the task's pristine workspace). Never
 * throws for what the agent did; an infrastructure failure is `infra_error` with reward null.
 */
export async function gradeRepoTask(manager: SandboxManager, task: RepoTask, patch: string, opts: RepoGradeOptions = {}): Promise<RepoGrade> {
  const t0 = performance.now();
  try {
    const a = await attempt(manager, task, patch, opts, t0);
    if ('grade' in a) return a.grade;
    return {
      ...emptyGrade(task, t0),
      status: 'infra_error',
      reward: null,
      runtime: a.runtime ?? '',
      envHash: a.envHash ?? '',
      error: a.infra,
      durationMs: performance.now() - t0,
    };
  } catch (e) {
    return {
      ...emptyGrade(task, t0),
      status: 'infra_error',
      reward: null,
      error: `grader failure: ${(e as Error).message}`,
      durationMs: performance.now() - t0,
    };
  }
}
