import { describe, expect, it } from 'vitest';
import { gradingTally, gradingTestRows, testKind } from './grading-tests';

const lists = { failToPass: ['t.py::test_new', 't.py::test_gone'], passToPass: ['t.py::test_old'] };

describe('grading tests by list', () => {
  it('labels a test FAIL_TO_PASS or PASS_TO_PASS from the task lists, nothing when unknown', () => {
    expect(testKind('t.py::test_new', lists)).toBe('FAIL_TO_PASS');
    expect(testKind('t.py::test_old', lists)).toBe('PASS_TO_PASS');
    expect(testKind('t.py::test_extra', lists)).toBeNull();
    expect(testKind('t.py::test_new', null)).toBeNull();
  });

  it('orders FAIL_TO_PASS first and adds listed tests the report lacks as missing', () => {
    const rows = gradingTestRows(
      [
        { name: 't.py::test_extra', passed: true, outcome: 'passed' },
        { name: 't.py::test_old', passed: false, outcome: 'failed', detail: 'assert 1 == 2' },
        { name: 't.py::test_new', passed: true, outcome: 'passed' },
      ],
      lists,
    );
    expect(rows.map((r) => [r.name, r.kind, r.outcome])).toEqual([
      ['t.py::test_new', 'FAIL_TO_PASS', 'passed'],
      ['t.py::test_gone', 'FAIL_TO_PASS', 'missing'],
      ['t.py::test_old', 'PASS_TO_PASS', 'failed'],
      ['t.py::test_extra', null, 'passed'],
    ]);
    expect(gradingTally(rows)).toEqual({
      FAIL_TO_PASS: { passed: 1, total: 2 },
      PASS_TO_PASS: { passed: 0, total: 1 },
      other: { passed: 1, total: 1 },
    });
  });
});
