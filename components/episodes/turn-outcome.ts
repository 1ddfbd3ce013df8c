import { namedTestCases, type TestCase } from '@/core/task-kinds';
import type { TurnTestResult } from '@/core/tasks';

/**
 * What one turn's execution came to, from what an episode stores per turn (workers/rl/episode.ts):
 * the sandbox's exit code and status, the candidate's output, and the observation the policy
 * was shown next ("2/3 passed; returned 4", "error: NameError: …", "infrastructure failure:
 * timeout"). The harness process exits 0 even when the candidate's program did not load, so
 * the exit code alone would read "exit 0 ok" for a program that never ran: the observation
 * decides. Pure, so the rules are unit-tested.
 */

export type TurnFacts = { exitCode: number | null; execStatus: string | null; observation: string | null; stdout: string | null };

export type TurnOutcome = {
  /** one line for the turn's header: "did not load: …", "2/3 tests passed", "timeout", … */
  status: string;
  tone: 'ok' | 'fail' | 'error';
  /** the candidate's load error (syntax error, import failure), when it did not load */
  loadError: string | null;
  /** tests passed / total, when the harness reported them */
  tests: { passed: number; total: number } | null;
  /** the first failing test's detail (the harness reports the lowest-index failure) */
  firstFailure: string | null;
};

const LOAD = /^error: ([\s\S]*)$/;
const COUNTS = /^(\d+)\/(\d+) passed(?:; ([\s\S]*))?$/;
const INFRA = /^infrastructure failure: (.*)$/;

export function turnOutcome(t: Pick<TurnFacts, 'exitCode' | 'execStatus' | 'observation'>): TurnOutcome {
  const obs = t.observation?.trim() ?? '';
  const load = LOAD.exec(obs);
  if (load) return { status: `did not load: ${load[1]}`, tone: 'error', loadError: load[1]!, tests: null, firstFailure: null };
  const infra = INFRA.exec(obs);
  if (infra) return { status: `infrastructure failure: ${infra[1]}`, tone: 'error', loadError: null, tests: null, firstFailure: null };
  const counts = COUNTS.exec(obs);
  const tests = counts ? { passed: Number(counts[1]), total: Number(counts[2]) } : null;
  const firstFailure = counts?.[3] ?? null;
  // a time-out or memory kill says more than the test count it left behind
  if (t.execStatus && t.execStatus !== 'ok' && t.execStatus !== 'nonzero_exit')
    return { status: t.execStatus.replace(/_/g, ' '), tone: 'error', loadError: null, tests, firstFailure };
  if (tests) {
    const all = tests.passed === tests.total && tests.total > 0;
    return { status: `${tests.passed}/${tests.total} tests passed`, tone: all ? 'ok' : 'fail', loadError: null, tests, firstFailure };
  }
  const exit = `exit ${t.exitCode ?? '—'}${t.execStatus ? ` ${t.execStatus.replace(/_/g, ' ')}` : ''}`;
  return { status: exit, tone: t.exitCode === 0 ? 'ok' : 'fail', loadError: null, tests: null, firstFailure: null };
}

/** The harness's protocol lines (a per-run marker, then JSON); older episodes stored them with the output. */
const PROTOCOL = /^\u001eCRUCIBLE-[0-9a-f]+ .*$/;

/** The candidate's own output: the harness's protocol lines removed, and how many were. */
export function candidateOutput(stdout: string | null): { text: string; protocolLines: number } {
  if (!stdout) return { text: '', protocolLines: 0 };
  const lines = stdout.split('\n');
  const kept = lines.filter((l) => !PROTOCOL.test(l));
  return { text: kept.join('\n').replace(/\n+$/, ''), protocolLines: lines.length - kept.length };
}

export type { TestCase } from '@/core/task-kinds';
export type TestRow = TestCase & { passed: boolean | null; result: string };

/** The task's tests as named cases (one definition for every layer: core/task-kinds.ts). */
export const testCases = namedTestCases;

/**
 * Per-test rows for one turn. Episodes store the turn's counts and first failure, not each
 * test's result, so a row is known exactly when the program did not load (none ran), when
 * every test passed, or when none did (the first failure is test #0's). Otherwise the rows
 * say the count and that per-test results were not recorded.
 */
export function testRows(cases: TestCase[], outcome: TurnOutcome): TestRow[] {
  return cases.map((c, i) => {
    if (outcome.loadError) return { ...c, passed: false, result: `not run: ${outcome.loadError}` };
    const t = outcome.tests;
    if (!t || t.total !== cases.length) return { ...c, passed: null, result: 'not recorded' };
    if (t.passed === t.total) return { ...c, passed: true, result: 'passed' };
    if (t.passed === 0) return { ...c, passed: false, result: i === 0 && outcome.firstFailure ? outcome.firstFailure : 'failed' };
    return { ...c, passed: null, result: `not recorded per test (${t.passed} of ${t.total} passed)` };
  });
}

export type ExactTestRow = { index: number; name: string; expected: string | null; passed: boolean; ms: number; detail: string };

/**
 * Per-test rows from what the turn recorded for each check (turns.tests), named after the
 * task's cases by index (the index has its own column); a check the task does not list (e.g.
 * a changed task) is named as such.
 */
export function exactTestRows(cases: TestCase[], tests: TurnTestResult[]): ExactTestRow[] {
  return [...tests]
    .sort((a, b) => a.index - b.index)
    .map((t) => {
      const c = cases[t.index];
      const name = c ? c.name.replace(/^#\d+ /, '') : 'not among the task’s cases';
      return { index: t.index, name, expected: c?.expected ?? null, passed: t.passed, ms: t.ms, detail: t.detail };
    });
}
