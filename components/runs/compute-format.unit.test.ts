import { describe, expect, it } from 'vitest';
import { computeRows, formatComputeSeconds } from './compute-format';

describe('formatComputeSeconds', () => {
  it('reads as seconds, minutes or hours', () => {
    expect(formatComputeSeconds(0)).toBe('0 s');
    expect(formatComputeSeconds(0.421)).toBe('0.42 s');
    expect(formatComputeSeconds(12.34)).toBe('12.3 s');
    expect(formatComputeSeconds(245)).toBe('4 min 05 s');
    expect(formatComputeSeconds(7560)).toBe('2.1 h');
    expect(formatComputeSeconds(Number.NaN)).toBe('0 s');
  });
});

describe('computeRows', () => {
  it("gives each phase its share of the run's CPU and shows GPU only when some was counted", () => {
    const r = computeRows([
      { phase: 'sampling', cpuSeconds: 3, gpuSeconds: 0, jobs: 4 },
      { phase: 'grading', cpuSeconds: 1, gpuSeconds: 0, jobs: 4 },
      { phase: 'learning', cpuSeconds: 0, gpuSeconds: 0, jobs: 0 },
    ]);
    expect(r.cpuSeconds).toBe(4);
    expect(r.showGpu).toBe(false);
    expect(r.rows.map((x) => [x.label, x.share])).toEqual([
      ['Sampling', 0.75],
      ['Grading', 0.25],
      ['Learning', 0],
    ]);
    expect(computeRows([{ phase: 'learning', cpuSeconds: 2, gpuSeconds: 1.5, jobs: 1 }]).showGpu).toBe(true);
    expect(computeRows([{ phase: 'learning', cpuSeconds: 0, gpuSeconds: 0, jobs: 0 }]).rows[0]!.share).toBe(0);
  });
});
