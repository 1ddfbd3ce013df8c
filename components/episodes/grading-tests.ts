import type { RepoTestResult } from '@/core/repo-tasks';

/**
 * A repository task's grading run as rows for the episode page: each test's result with the
 * list it belongs to (FAIL_TO_PASS: must pass after the change; PASS_TO_PASS: must keep
 * passing), and the listed tests the grader's report did not mention, so none disappears
 * from view. Pure, so the rules are unit-tested.
 */

export type TestKind = 'FAIL_TO_PASS' | 'PASS_TO_PASS';
export type RepoTestLists = { failToPass: string[]; passToPass: string[] };

/** The list a test id is on; null when the task's lists are unknown or do not name it (e.g. a test the grader found besides them). */
export function testKind(name: string, lists: RepoTestLists | null): TestKind | null {
  if (!lists) return null;
  if (lists.failToPass.includes(name)) return 'FAIL_TO_PASS';
  if (lists.passToPass.includes(name)) return 'PASS_TO_PASS';
  return null;
}

export type GradingTestRow = RepoTestResult & { kind: TestKind | null };

const kindOrder = (k: TestKind | null) => (k === 'FAIL_TO_PASS' ? 0 : k === 'PASS_TO_PASS' ? 1 : 2);

/**
 * The grading run's tests, FAIL_TO_PASS first, then PASS_TO_PASS, then others, each in the
 * grader's order; a listed test absent from the results is a row with outcome "missing".
 */
export function gradingTestRows(tests: RepoTestResult[], lists: RepoTestLists | null): GradingTestRow[] {
  const rows: GradingTestRow[] = tests.map((t) => ({ ...t, kind: testKind(t.name, lists) }));
  if (lists) {
    const seen = new Set(tests.map((t) => t.name));
    for (const name of [...lists.failToPass, ...lists.passToPass]) {
      if (!seen.has(name)) {
        seen.add(name);
        rows.push({ name, passed: false, outcome: 'missing', detail: 'not in the grader’s report', kind: testKind(name, lists) });
      }
    }
  }
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => kindOrder(a.r.kind) - kindOrder(b.r.kind) || a.i - b.i)
    .map(({ r }) => r);
}

/** Passed / total per list, for the grading run's summary line. */
export function gradingTally(rows: GradingTestRow[]): Record<TestKind | 'other', { passed: number; total: number }> {
  const tally = { FAIL_TO_PASS: { passed: 0, total: 0 }, PASS_TO_PASS: { passed: 0, total: 0 }, other: { passed: 0, total: 0 } };
  for (const r of rows) {
    const t = tally[r.kind ?? 'other'];
    t.total++;
    if (r.passed) t.passed++;
  }
  return tally;
}
