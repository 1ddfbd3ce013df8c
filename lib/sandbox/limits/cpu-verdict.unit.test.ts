import { describe, expect, it } from 'vitest';
import { candidateFailed, cpuVerdict, wallCeilingMs } from './cpu-verdict';

const base = { cpuLimitMs: 2000, ceilingMs: 8000 };

describe('cpuVerdict: whose fault a time limit is', () => {
  it('ok within both limits, however much the candidate waited', () => {
    expect(cpuVerdict({ ...base, wallMs: 7000, cpuMs: 1500, cpuWaitMs: 5500 })).toBe('ok');
    expect(cpuVerdict({ ...base, wallMs: 10, cpuMs: 5 })).toBe('ok');
  });

  it('cpu_limit once the CPU budget is used, wall clock or not', () => {
    expect(cpuVerdict({ ...base, wallMs: 2100, cpuMs: 2000, cpuWaitMs: 0 })).toBe('cpu_limit');
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 2500, cpuWaitMs: 5000, timedOut: true })).toBe('cpu_limit');
  });

  it('contended: the ceiling expired while the candidate mostly waited for a CPU', () => {
    // a CPU-bound program that got a tenth of a CPU
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 800, cpuWaitMs: 7200, timedOut: true })).toBe('contended');
    // half of the time not running spent waiting is enough
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 0, cpuWaitMs: 4000, timedOut: true })).toBe('contended');
  });

  it('blocked: the ceiling expired while the candidate slept or waited on something that never came', () => {
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 3, cpuWaitMs: 1, timedOut: true })).toBe('blocked');
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 100, cpuWaitMs: 3000, timedOut: true })).toBe('blocked');
    // a few ms of wait of a sleeper that woke now and then is no contention
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 7990, cpuWaitMs: 6, timedOut: true, cpuLimitMs: 9000 })).toBe('blocked');
  });

  it('blocked when the tier measures no wait: the old wall-clock judgement', () => {
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 800, timedOut: true })).toBe('blocked');
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 800, cpuWaitMs: NaN, timedOut: true })).toBe('blocked');
  });

  it('takes wallMs ≥ ceilingMs as expiry when timedOut is not given', () => {
    expect(cpuVerdict({ ...base, wallMs: 8000, cpuMs: 800, cpuWaitMs: 7000 })).toBe('contended');
    expect(cpuVerdict({ ...base, wallMs: 7999, cpuMs: 800, cpuWaitMs: 7000 })).toBe('ok');
    // an explicit timedOut wins (the exec's own timer decided)
    expect(cpuVerdict({ ...base, wallMs: 9000, cpuMs: 800, cpuWaitMs: 7000, timedOut: false })).toBe('ok');
  });

  it('candidateFailed: only cpu_limit and blocked deserve a 0', () => {
    expect(['ok', 'cpu_limit', 'blocked', 'contended'].map((v) => candidateFailed(v as never))).toEqual([false, true, true, false]);
  });

  it('wallCeilingMs: 4× the limit, at least the limit + 3 s', () => {
    expect(wallCeilingMs(700)).toBe(3700);
    expect(wallCeilingMs(2000)).toBe(8000);
    expect(wallCeilingMs(60_000)).toBe(240_000);
  });
});
