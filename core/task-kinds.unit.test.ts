import { describe, expect, it } from 'vitest';
import { AGENT_EPISODE_KINDS, kindOfTests, namedTestCases, runsAgentEpisodes, taskKindLabel, TASK_KIND_TRAITS } from './task-kinds';
import { TASK_KINDS } from './tasks';

describe('task kind traits', () => {
  it('describe every kind, and only repository tasks run agent episodes', () => {
    expect(Object.keys(TASK_KIND_TRAITS).sort()).toEqual([...TASK_KINDS].sort());
    expect(AGENT_EPISODE_KINDS).toEqual(['repo']);
    expect([runsAgentEpisodes('repo'), runsAgentEpisodes('io'), runsAgentEpisodes('text'), runsAgentEpisodes('nope'), runsAgentEpisodes(null)]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect([taskKindLabel('io'), taskKindLabel('future-kind')]).toEqual(['input/output', 'future-kind']);
  });

  it('classify a task by its tests and name its test cases', () => {
    expect(kindOfTests({ kind: 'text', checks: [{ type: 'ends_sentence' }] })).toBe('text');
    expect(kindOfTests({ kind: 'humaneval', check: 'def check(f): pass' })).toBe('io');
    expect(kindOfTests({ kind: 'io', cases: [] })).toBe('io');
    expect(namedTestCases({ kind: 'io', cases: [{ input: [1, 'a'], expected: 2 }] }, 'f')).toEqual([{ name: '#0 f(1, "a")', input: '1, "a"', expected: '2' }]);
    expect(namedTestCases({ kind: 'humaneval', check: '' }, 'g')).toEqual([{ name: 'check(g)' }]);
    expect(namedTestCases({ kind: 'text', checks: [{ type: 'min_words', n: 3 }] }, null)).toEqual([{ name: '#0 at least 3 words' }]);
    expect(namedTestCases({ kind: 'repo' }, null)).toEqual([]);
  });
});
