import { describe, expect, it } from 'vitest';
import { emptyLogFilters, fieldSummary, filterProblem, filtersFromSearch, formatOffset, logsQuery, searchFromFilters } from './log-filters';

const run = '0b6f3a52-5d2a-4c1e-9f7a-2f7e0c1d9a10';

describe('log filters', () => {
  it('round-trip through the URL, only what is set, and an unknown level is dropped', () => {
    const f = { ...emptyLogFilters, run, level: 'warn' as const, text: ' timeout ' };
    const search = searchFromFilters(f);
    expect(search).toBe(`?run=${run}&level=warn&text=timeout`);
    expect(filtersFromSearch(new URLSearchParams(search))).toEqual({ ...f, text: 'timeout' });
    expect(searchFromFilters(emptyLogFilters)).toBe('');
    expect(filtersFromSearch(new URLSearchParams('?level=loud')).level).toBe('');
  });

  it('become logs.list input, and a run that is not an id is named before asking', () => {
    expect(logsQuery({ ...emptyLogFilters, worker: ' jobs-1 ', level: 'error' })).toEqual({
      run: undefined,
      episode: undefined,
      worker: 'jobs-1',
      host: undefined,
      level: 'error',
      text: undefined,
    });
    expect(filterProblem({ ...emptyLogFilters, run: 'my-run' })).toMatch(/Run must be a run id/);
    expect(filterProblem({ ...emptyLogFilters, run })).toBeNull();
  });

  it('summarise fields and offsets', () => {
    expect(fieldSummary({ tool: 'bash', durationMs: 12, exitCode: 1, err: { message: 'x' }, stage: null })).toBe('tool=bash durationMs=12 exitCode=1');
    expect([formatOffset(0), formatOffset(1250), formatOffset(12_500), formatOffset(125_000)]).toEqual(['+0 ms', '+1.25 s', '+12.5 s', '+2 min 5 s']);
  });
});
