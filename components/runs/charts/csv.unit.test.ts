import { describe, expect, it } from 'vitest';
import { chartCsv, csvFileName } from './csv';

describe('chart CSV', () => {
  it('one row per x, a column per series, the band as low/high, quoting where needed', () => {
    const csv = chartCsv(
      'iteration',
      [
        { key: 'a', label: 'run "a", v2' },
        { key: 'band', label: '±1 std' },
      ],
      [
        { x: 0, a: 0.25, band: [0.1, 0.4] },
        { x: 1, a: undefined },
        { x: 2, a: Number.NaN, band: [0, 1] },
      ],
    );
    expect(csv).toBe('iteration,"run ""a"", v2",±1 std low,±1 std high\r\n0,0.25,0.1,0.4\r\n1,,,\r\n2,,0,1\r\n');
  });

  it('file names are safe', () => {
    expect(csvFileName('sandbox_failures')).toBe('sandbox_failures.csv');
    expect(csvFileName('a/b c')).toBe('a_b_c.csv');
  });
});
