import { childEnv } from '@/core/settings';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusEntry, HumanEvalEntry, IoEntry, JsStyle } from './corpus';
import { sameValue, show, type Observed } from './reference-compare';

/**
 * The reference verdict: each corpus program run directly with the host's python3 / node,
 * outside Crucible and without any harness code, as the reference harnesses define it.
 */
export type DirectResult = { passed: boolean; detail: string; tests: { passed: boolean; detail: string }[] };

const here = path.dirname(fileURLToPath(import.meta.url));
const DRIVERS = { python: path.join(here, 'io-driver.py'), javascript: path.join(here, 'io-driver.mjs') };

type Exit = { code: number | null; timedOut: boolean; stderr: string };

/** Run a command in its own process group; the whole group is killed at the deadline. */
function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<Exit> {
  return new Promise((resolve, reject) => {
    // A minimal environment: the test runner's NODE_OPTIONS and the like must not leak in.
    const child = spawn(cmd, args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: childEnv().PATH ?? '/usr/bin:/bin', HOME: cwd, PYTHONDONTWRITEBYTECODE: '1' } as unknown as NodeJS.ProcessEnv,
    });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stderr });
    });
  });
}

const lastLine = (s: string) => s.trim().split('\n').pop() ?? '';
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);

/** OpenAI human-eval's composition: prompt + completion, the test, then check(entry_point). */
async function runHumanEval(e: HumanEvalEntry, dir: string, timeoutMs: number): Promise<DirectResult> {
  const program = `${e.solution}\n${e.test}\n\ncheck(${e.entry_point})\n`;
  fs.writeFileSync(path.join(dir, 'program.py'), program);
  const x = await run('python3', ['program.py'], dir, timeoutMs);
  const passed = x.code === 0 && !x.timedOut;
  const detail = passed ? 'passed' : x.timedOut ? 'timeout' : `exit ${x.code}: ${lastLine(x.stderr)}`;
  return { passed, detail, tests: [{ passed, detail }] };
}

/** Node decides how to load a file by its extension; each style gets the one it needs. */
function jsFile(style: JsStyle): { file: string; module: 'script' | 'commonjs' | 'esm' } {
  if (style === 'plain') return { file: 'solution.js', module: 'script' };
  if (style.startsWith('cjs-')) return { file: 'solution.cjs', module: 'commonjs' };
  return { file: 'solution.mjs', module: 'esm' };
}

async function runIo(e: IoEntry, dir: string, timeoutMs: number): Promise<DirectResult> {
  const { file, module } = e.language === 'python' ? { file: 'solution.py', module: 'python' } : jsFile(e.style);
  const solutionPath = path.join(dir, file);
  fs.writeFileSync(solutionPath, e.solution);
  fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify({ path: solutionPath, module, entryPoint: e.entryPoint, inputs: e.tests.map((c) => c.input) }));
  const resultsPath = path.join(dir, 'results.json');
  const x = await run(e.language === 'python' ? 'python3' : 'node', [DRIVERS[e.language], 'job.json', 'results.json'], dir, timeoutMs);
  const fail = (why: string): DirectResult => ({ passed: false, detail: why, tests: e.tests.map(() => ({ passed: false, detail: why })) });
  if (!fs.existsSync(resultsPath)) return fail(x.timedOut ? 'timeout' : `no results (exit ${x.code}): ${lastLine(x.stderr)}`);
  const out = JSON.parse(fs.readFileSync(resultsPath, 'utf8')) as { loadError?: string; results?: ({ value: Observed } | { error: string })[] };
  if (out.loadError !== undefined) return fail(`load error: ${out.loadError}`);
  const tests = e.tests.map((c, i) => {
    const r = out.results?.[i];
    if (!r) return { passed: false, detail: 'no result' };
    if ('error' in r) return { passed: false, detail: `raised: ${oneLine(r.error)}` };
    const ok = sameValue(r.value, c.expected);
    return { passed: ok, detail: ok ? 'passed' : `returned ${show(r.value)}, expected ${JSON.stringify(c.expected)}` };
  });
  const passed = tests.every((t) => t.passed);
  return { passed, detail: passed ? 'passed' : tests.find((t) => !t.passed)!.detail, tests };
}

export async function runDirect(e: CorpusEntry, opts: { timeoutMs?: number } = {}): Promise<DirectResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-direct-'));
  try {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    return e.format === 'humaneval' ? await runHumanEval(e, dir, timeoutMs) : await runIo(e, dir, timeoutMs);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
