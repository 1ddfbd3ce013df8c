import { describe, expect, it } from 'vitest';
import { durationAxis, formatSi, integerAxis, linearAxis, logAxis, niceStep, tickFormatter } from './ticks';

const labels = (a: { ticks: number[]; format: (v: number) => string }) => a.ticks.map(a.format);

describe('axis ticks', () => {
  it('steps are 1, 2 or 5 × 10^k', () => {
    expect(niceStep(1, 5)).toBe(0.2);
    expect(niceStep(0.0009, 5)).toBeCloseTo(0.0002, 12);
    expect(niceStep(7, 5)).toBe(2);
    expect(niceStep(0, 5)).toBe(1);
  });

  it('a tiny KL series gets distinct scientific labels, not "0, 0, 0, …00090"', () => {
    const axis = linearAxis([0, 0.0003, 0.0009, 0.0002]);
    const l = labels(axis);
    expect(new Set(l).size).toBe(l.length);
    expect(l).toEqual(['0', '2e-4', '4e-4', '6e-4', '8e-4', '1e-3']);
    expect(axis.domain).toEqual([0, 0.001]);
  });

  it('an all-zero series gets the axis [0, 1]; another constant one a band around it', () => {
    const zero = linearAxis([0, 0, 0]);
    expect(zero.domain).toEqual([0, 1]);
    expect(labels(zero)).toEqual(['0', '0.2', '0.4', '0.6', '0.8', '1']);
    const five = linearAxis([5, 5]);
    expect(five.domain[0]).toBeLessThan(5);
    expect(five.domain[1]).toBeGreaterThan(5);
    expect(new Set(labels(five)).size).toBe(five.ticks.length);
    expect(linearAxis([]).domain).toEqual([0, 1]);
  });

  it('a series constant but for float noise reads as constant: 3.6 … 4.4, not 4, 4, 4.000000000000001', () => {
    const a = linearAxis([4.000000000000001, 4, 4]);
    const labels = a.ticks.map(a.format);
    expect(labels).toEqual(['3.6', '3.8', '4', '4.2', '4.4']);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('large values get SI prefixes; labels never repeat', () => {
    expect(labels(linearAxis([0, 2_500_000]))).toEqual(['0', '500k', '1M', '1.5M', '2M', '2.5M']);
    expect(formatSi(1234)).toBe('1.23k');
    expect(formatSi(0.5)).toBe('0.5');
    expect(formatSi(-0.00015)).toBe('-1.5e-4');
    // close values around a large offset need more digits to stay apart
    const f = tickFormatter([100_000, 100_100, 100_200]);
    expect([100_000, 100_100, 100_200].map(f)).toEqual(['100k', '100.1k', '100.2k']);
  });

  it('no floating-point noise in tick values', () => {
    expect(linearAxis([0.1, 0.3]).ticks).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
  });

  it('whole-number axes (iterations) never get fractional ticks', () => {
    expect(integerAxis([0, 1, 2]).ticks).toEqual([0, 1, 2]);
    expect(integerAxis([3]).ticks).toEqual([3, 4]);
    expect(integerAxis([0, 500]).ticks).toEqual([0, 100, 200, 300, 400, 500]);
  });

  it('a log axis has decades, and counts the values it cannot show', () => {
    const a = logAxis([0.001, 0.5, 20, 0, -1]);
    expect(a.ticks).toEqual([0.001, 0.01, 0.1, 1, 10, 100]);
    expect(labels(a)).toEqual(['0.001', '0.01', '0.1', '1', '10', '100']);
    expect(a.hidden).toBe(2);
  });

  it('a time axis steps in seconds, minutes or hours', () => {
    expect(labels(durationAxis([0, 30, 59]))).toEqual(['0', '20s', '40s', '60s']);
    expect(labels(durationAxis([0, 1800]))).toEqual(['0', '10m', '20m', '30m']);
    expect(labels(durationAxis([0, 5 * 3600]))).toEqual(['0', '1h', '2h', '3h', '4h', '5h']);
  });
});
