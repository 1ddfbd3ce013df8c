import { describe, expect, it } from 'vitest';
import { processStatsSampler } from './process-stats';

describe("a worker process's own CPU and memory", () => {
  it('is CPU time over wall time since the previous sample, as % of one core', () => {
    let cpu = { user: 0, system: 0 };
    let ns = 0n;
    const sample = processStatsSampler({ cpuUsage: () => cpu, hrtimeNs: () => ns, rssBytes: () => 300 * 1024 * 1024 });
    // 1 s of wall time, 0.4 s user + 0.1 s system: half a core
    cpu = { user: 400_000, system: 100_000 };
    ns = 1_000_000_000n;
    expect(sample()).toEqual({ cpuPercent: 50, rssMb: 300 });
    // the next second two cores were busy: deltas, not totals since start
    cpu = { user: 2_100_000, system: 400_000 };
    ns = 2_000_000_000n;
    expect(sample().cpuPercent).toBe(200);
    // no time passed: 0, not a division by zero
    expect(sample().cpuPercent).toBe(0);
  });

  it('measures this process for real', async () => {
    const sample = processStatsSampler();
    const until = Date.now() + 200;
    while (Date.now() < until) Math.sqrt(Math.random());
    const s = sample();
    expect(s.cpuPercent).toBeGreaterThan(20);
    expect(s.rssMb).toBeGreaterThan(10);
  });
});
