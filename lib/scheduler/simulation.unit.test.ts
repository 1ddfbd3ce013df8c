import { beforeAll, describe, expect, it } from 'vitest';
import { parseSimArgs } from './simulation-cli';
import { runSimulation, type SimReport } from './simulation';

describe('simulated cluster driving the scheduling core', () => {
  // 150 nodes, ~2,400 outstanding closed-loop tasks (a saturating backlog), critical bursts
  // up to 45% of the cluster every ~60 s, a node failure every ~40 s: small enough for CI,
  // big enough that bursts must preempt and nodes do fail.
  let report: SimReport;
  beforeAll(() => {
    report = runSimulation({ seed: 7, nodes: 150, tasks: 2400, durationS: 300, warmupS: 60, nodeMtbfS: 6000, burstEveryS: 60 });
  });

  it('starts critical work within 1 s (p99) under a saturating best-effort backlog', () => {
    expect(report.tiers.critical.admitted).toBeGreaterThan(500);
    expect(report.tiers['best-effort'].waitS.p95).toBeGreaterThan(10); // the backlog is real
    expect(report.tiers.critical.waitS.p99).toBeLessThanOrEqual(1);
    expect(report.preemptions.priority).toBeGreaterThan(0); // bursts beyond the reserve preempt
  });

  it('keeps the non-reserved capacity ≥ 90% busy while there is a backlog', () => {
    expect(report.utilisation.backlogSamplesCpu).toBeGreaterThan(900);
    expect(report.utilisation.cpu).toBeGreaterThanOrEqual(0.9);
    expect(report.utilisation.gpu).toBeGreaterThanOrEqual(0.9);
  });

  it('starves no tier beyond its bound, shares fairly between runs, requeues lost work', () => {
    for (const [tier, t] of Object.entries(report.tiers)) {
      expect({ tier, starved: t.starved }).toEqual({ tier, starved: false });
      expect(t.maxServiceGapS).toBeLessThanOrEqual(t.starvationBoundS);
      expect(t.waitS.max).toBeLessThanOrEqual(t.starvationBoundS);
    }
    expect(report.tiers['best-effort'].fairness).toBeGreaterThan(0.95);
    expect(report.nodeFailures).toBeGreaterThan(0);
    expect(report.requeuedByNodeLoss).toBeGreaterThan(0);
  });

  it('is deterministic for a seed', () => {
    const a = runSimulation({ seed: 3, nodes: 20, tasks: 300, durationS: 60, warmupS: 10 });
    const b = runSimulation({ seed: 3, nodes: 20, tasks: 300, durationS: 60, warmupS: 10 });
    expect(a.tiers).toEqual(b.tiers);
    expect(a.completed).toBe(b.completed);
  });

  it('validates its command line', () => {
    expect(parseSimArgs(['--nodes', '500', '--json']).options.nodes).toBe(500);
    expect(() => parseSimArgs(['--nodes', 'many'])).toThrow(/--nodes must be a number/);
    expect(() => parseSimArgs(['--nodes', '3'])).toThrow(/--nodes/);
    expect(() => parseSimArgs(['--frobnicate'])).toThrow();
  });
});
