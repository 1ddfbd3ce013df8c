import { describe, expect, it } from 'vitest';
import { candidateOutput, exactTestRows, testCases, testRows, turnOutcome } from './turn-outcome';

const io = {
  kind: 'io',
  cases: [
    { input: [2, 3], expected: 5 },
    { input: [1, 1], expected: 2 },
  ],
};

describe('turn outcome (from what an episode stores per turn)', () => {
  it('a program that did not load shows its load error, not "exit 0 ok"', () => {
    const o = turnOutcome({ exitCode: 0, execStatus: 'ok', observation: 'error: SyntaxError: invalid syntax (line 3)' });
    expect(o).toMatchObject({ status: 'did not load: SyntaxError: invalid syntax (line 3)', tone: 'error', loadError: 'SyntaxError: invalid syntax (line 3)' });
    expect(testRows(testCases(io, 'add'), o).map((r) => [r.passed, r.result])).toEqual([
      [false, 'not run: SyntaxError: invalid syntax (line 3)'],
      [false, 'not run: SyntaxError: invalid syntax (line 3)'],
    ]);
  });

  it('test counts become the status; all or none passing gives exact per-test rows', () => {
    const all = turnOutcome({ exitCode: 0, execStatus: 'ok', observation: '2/2 passed' });
    expect(all).toMatchObject({ status: '2/2 tests passed', tone: 'ok', tests: { passed: 2, total: 2 } });
    expect(testRows(testCases(io, 'add'), all).map((r) => r.passed)).toEqual([true, true]);
    const none = turnOutcome({ exitCode: 0, execStatus: 'ok', observation: '0/2 passed; returned -1' });
    expect(none.tone).toBe('fail');
    expect(testRows(testCases(io, 'add'), none).map((r) => [r.name, r.passed, r.result])).toEqual([
      ['#0 add(2, 3)', false, 'returned -1'],
      ['#1 add(1, 1)', false, 'failed'],
    ]);
  });

  it('a partial pass says the count and that per-test results were not recorded', () => {
    const some = turnOutcome({ exitCode: 0, execStatus: 'ok', observation: '1/2 passed; returned 0' });
    expect(some).toMatchObject({ status: '1/2 tests passed', tone: 'fail', firstFailure: 'returned 0' });
    expect(testRows(testCases(io, 'add'), some).every((r) => r.passed === null && r.result.includes('1 of 2 passed'))).toBe(true);
  });

  it('a time-out or an infrastructure failure is the status', () => {
    expect(turnOutcome({ exitCode: null, execStatus: 'timeout', observation: '0/2 passed; timeout (the program did not finish)' }).status).toBe('timeout');
    expect(turnOutcome({ exitCode: null, execStatus: 'sandbox_error', observation: 'infrastructure failure: sandbox_error' })).toMatchObject({
      status: 'infrastructure failure: sandbox_error',
      tone: 'error',
    });
    // a turn with no observation (older rows) falls back to the exit status
    expect(turnOutcome({ exitCode: 1, execStatus: 'nonzero_exit', observation: null })).toMatchObject({ status: 'exit 1 nonzero exit', tone: 'fail' });
  });

  it('the harness protocol lines are not the candidate’s output', () => {
    const marker = '\u001eCRUCIBLE-0123456789abcdef0123456789abcdef ';
    const out = candidateOutput(`hello\n${marker}{"i":0,"value":5}\nworld\n${marker}{"output":"hello"}\n`);
    expect(out).toEqual({ text: 'hello\nworld', protocolLines: 2 });
    expect(candidateOutput(null)).toEqual({ text: '', protocolLines: 0 });
  });

  it('names HumanEval checks and io cases', () => {
    expect(testCases({ kind: 'humaneval', check: 'def check(c): ...' }, 'f')).toEqual([{ name: 'check(f)' }]);
    expect(testCases([{ input: ['a'], expected: 'A' }], 'up')).toEqual([{ name: '#0 up("a")', input: '"a"', expected: '"A"' }]);
    expect(testCases(null, 'f')).toEqual([]);
  });
});

describe('exact per-test rows (turns.tests)', () => {
  it('names each recorded check after the task case at its index, in index order, with its own result and time', () => {
    const rows = exactTestRows(testCases(io, 'add'), [
      { index: 1, passed: true, ms: 2, detail: 'returned 2' },
      { index: 0, passed: false, ms: 3, detail: 'expected 5, got -1' },
    ]);
    expect(rows).toEqual([
      { index: 0, name: 'add(2, 3)', expected: '5', passed: false, ms: 3, detail: 'expected 5, got -1' },
      { index: 1, name: 'add(1, 1)', expected: '2', passed: true, ms: 2, detail: 'returned 2' },
    ]);
  });

  it('a check the task does not list keeps its index and says so', () => {
    expect(exactTestRows([], [{ index: 4, passed: true, ms: 1, detail: 'ok' }])).toEqual([
      { index: 4, name: 'not among the task’s cases', expected: null, passed: true, ms: 1, detail: 'ok' },
    ]);
  });

  it("names a text task's checks as the checker applies them", () => {
    const tests = { kind: 'text', checks: [{ type: 'mentions', words: ['Lily'] }, { type: 'ends_sentence' }, { type: 'min_words', n: 6 }] };
    expect(testCases(tests, 'story').map((c) => c.name)).toEqual(['#0 mentions Lily', '#1 ends a sentence', '#2 at least 6 words']);
  });
});
