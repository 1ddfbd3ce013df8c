import { describe, expect, it } from 'vitest';
import { at, InvariantError, must } from './must';

describe('must / at', () => {
  it('passes present values through, falsy ones included', () => {
    expect(must(0, 'a count')).toBe(0);
    expect(must('', 'a name')).toBe('');
    expect(must(null, 'a nullable row')).toBeNull();
    expect(at([10, 20, 30], 2, 'a score')).toBe(30);
    expect(at(new Float32Array([1.5]), 0, 'a weight')).toBe(1.5);
  });

  it('throws an InvariantError naming what was missing', () => {
    expect(() => must(undefined, 'a reward row for episode e1')).toThrow(InvariantError);
    expect(() => must(undefined, 'a reward row for episode e1')).toThrow(/expected a reward row for episode e1/);
    expect(() => at([1, 2], 2, 'a score')).toThrow(/expected a score at index 2 of 2/);
    expect(() => at([1, 2], -1, 'a score')).toThrow(InvariantError);
    expect(() => at([1, 2], 0.5, 'a score')).toThrow(InvariantError);
  });
});
