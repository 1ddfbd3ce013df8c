import { describe, expect, it } from 'vitest';
import { CpuMeter, meterGpuRuns, recordGpuSeconds, recordSandboxCpu, withComputePhase } from './meter';

/** A process clock the test moves: `burn(s)` spends s CPU-seconds. */
function fakeClock() {
  let us = 0;
  return { clock: { cpuUsage: () => ({ user: us, system: 0 }) }, burn: (s: number) => (us += s * 1e6) };
}

describe('CpuMeter', () => {
  it("gives one job all of the process's CPU, split by its phase scopes, and its sandboxes' CPU exactly", async () => {
    const { clock, burn } = fakeClock();
    const meter = new CpuMeter(clock);
    burn(5); // before the job: nobody's
    const job = meter.start('sampling');
    await meter.run(job, async () => {
      burn(2);
      recordSandboxCpu(300); // the candidate's run while sampling
      await withComputePhase('grading', async () => {
        burn(1);
        recordSandboxCpu(700); // the tests
        recordGpuSeconds(0.25);
      });
      burn(0.5);
    });
    const usage = job.finish();
    expect(usage.cpu.sampling).toBeCloseTo(2.5);
    expect(usage.cpu.sandbox).toBeCloseTo(0.3);
    expect(usage.cpu.grading).toBeCloseTo(1.7);
    expect(usage.gpu).toEqual({ grading: 0.25 });
    burn(3); // after: nobody's
    expect(job.finish().cpu.sampling).toBeCloseTo(2.5);
    expect(meter.totals.sampling).toBeCloseTo(2.5);
    expect(meter.totals.grading).toBeCloseTo(1);
  });

  it('splits CPU evenly between jobs in flight, each to its own phase', async () => {
    const { clock, burn } = fakeClock();
    const meter = new CpuMeter(clock);
    const a = meter.start('sampling');
    burn(2); // a alone
    const b = meter.start('learning');
    burn(4); // both
    const ua = a.finish();
    burn(1); // b alone
    const ub = b.finish();
    expect(ua.cpu).toEqual({ sampling: 4 });
    expect(ub.cpu).toEqual({ learning: 3 });
  });

  it('keeps the more specific phase for nested scopes; outside a job, nothing is recorded', async () => {
    const { clock, burn } = fakeClock();
    const meter = new CpuMeter(clock);
    const job = meter.start('learning');
    await meter.run(job, () =>
      withComputePhase('heldout_eval', () =>
        withComputePhase('grading', async () => {
          burn(1);
          recordSandboxCpu(1000);
        }),
      ),
    );
    expect(job.finish().cpu).toEqual({ heldout_eval: 2 });
    recordSandboxCpu(5000);
    expect(await withComputePhase('grading', async () => 42)).toBe(42);
  });
});

describe('meterGpuRuns', () => {
  it("counts a GPU session's run time as the calling job's GPU-seconds, in its phase", async () => {
    const { clock } = fakeClock();
    const meter = new CpuMeter(clock);
    const session = meterGpuRuns({ run: async (ms: number) => new Promise<number>((r) => setTimeout(() => r(ms), ms)) });
    const job = meter.start('learning');
    await meter.run(job, async () => {
      expect(await session.run(60)).toBe(60);
      await withComputePhase('heldout_eval', () => session.run(30));
    });
    const { gpu } = job.finish();
    expect(gpu.learning).toBeGreaterThan(0.05);
    expect(gpu.learning).toBeLessThan(1);
    expect(gpu.heldout_eval).toBeGreaterThan(0.025);
    // outside a job a run still works and counts nowhere
    expect(await session.run(1)).toBe(1);
  });
});
