import { describe, expect, it } from 'vitest';
import { cumulativeTokens } from './run-tokens';

describe('cumulativeTokens (the "generated tokens" x-axis)', () => {
  it('sums generated_tokens per run in step order', () => {
    const out = cumulativeTokens(
      [
        { runId: 'a', name: 'generated_tokens', step: 2, value: 300 },
        { runId: 'a', name: 'generated_tokens', step: 1, value: 100 },
        { runId: 'a', name: 'response_length', step: 1, value: 99 },
        { runId: 'b', name: 'generated_tokens', step: 1, value: 7 },
      ],
      new Map([
        ['a', 4],
        ['b', 4],
      ]),
    );
    expect(out.get('a')).toEqual([
      [1, 100],
      [2, 400],
    ]);
    expect(out.get('b')).toEqual([[1, 7]]);
  });

  it('older runs: response_length × turns_per_episode × episodes per iteration; no count, no entry', () => {
    const out = cumulativeTokens(
      [
        { runId: 'old', name: 'response_length', step: 1, value: 10 },
        { runId: 'old', name: 'turns_per_episode', step: 1, value: 2 },
        { runId: 'old', name: 'response_length', step: 2, value: 5 },
        { runId: 'old', name: 'turns_per_episode', step: 2, value: 3 },
        { runId: 'half', name: 'response_length', step: 1, value: 10 },
      ],
      new Map([
        ['old', 8],
        ['half', 8],
      ]),
    );
    expect(out.get('old')).toEqual([
      [1, 160],
      [2, 280],
    ]);
    expect(out.has('half')).toBe(false);
  });
});
