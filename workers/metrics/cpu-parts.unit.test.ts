import { describe, expect, it } from 'vitest';
import { cpuPartsSince, newCpuPartsState, parseProcStat, type ProcTimes } from './cpu-parts';

describe('parseProcStat', () => {
  it('reads parent, own and reaped ticks, a command name with spaces and parentheses included', () => {
    const line = '4242 (node (tsx) x) S 4000 4242 4242 0 -1 4194560 100 0 0 0 150 50 30 20 20 0 11 0 123 0 0';
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4000, own: 200, reaped: 50 });
    expect(parseProcStat('garbage')).toBeNull();
  });
});

// session 10 → worker 20 (→ sandbox 21 → command 22), worker 30, web 11, postgres 12 (→ backend 13); 99 is someone else's
const tree = (t: Partial<Record<number, [own: number, reaped?: number]>>): ProcTimes[] => {
  const parents: Record<number, number> = { 10: 1, 11: 10, 12: 10, 13: 12, 20: 10, 21: 20, 22: 21, 30: 10, 99: 1 };
  return Object.entries(t).map(([pid, v]) => ({ pid: Number(pid), ppid: parents[Number(pid)]!, own: v![0], reaped: v![1] ?? 0 }));
};
const workers = (learning20 = 0) => [
  { id: 'w20', kind: 'jobs', pid: 20, cpuPhaseSeconds: { learning: learning20 } },
  { id: 'w30', kind: 'metrics', pid: 30, cpuPhaseSeconds: {} },
];

describe('cpuPartsSince', () => {
  it('attributes workers, their descendants, the session that started them; the learner comes out of its worker', () => {
    const s = newCpuPartsState();
    expect(cpuPartsSince(s, tree({ 10: [0], 11: [0], 12: [0], 13: [0], 20: [0], 21: [0], 22: [0], 30: [0], 99: [0] }), workers(0))).toEqual({
      workers: 0,
      learner: 0,
      sandboxes: 0,
      platform: 0,
    });
    // 5 s later: worker 20 used 300 ticks (2 s of it learning), worker 30 100; the sandbox 50 and its command 150; web 20, postgres 10 + 30; 99 500
    const p = cpuPartsSince(s, tree({ 10: [5], 11: [20], 12: [10], 13: [30], 20: [300], 21: [50], 22: [150], 30: [100], 99: [500] }), workers(2));
    expect(p.workers).toBeCloseTo(2); // 4 s of worker time less 2 s of learning
    expect(p.learner).toBeCloseTo(2);
    expect(p.sandboxes).toBeCloseTo(2);
    expect(p.platform).toBeCloseTo(0.65);
  });

  it('counts an exited command once: what was seen while it lived, then the rest its reaper gained', () => {
    const s = newCpuPartsState();
    cpuPartsSince(s, tree({ 10: [0], 20: [0], 21: [0], 22: [40] }), workers());
    // the command used 40 ticks before the first reading: not this interval's; 60 more since, then exited: its 100 reaped by 21
    const p = cpuPartsSince(s, tree({ 10: [0], 20: [0], 21: [0, 100] }), workers());
    expect(p.sandboxes).toBeCloseTo(0.6);
    // a whole sandbox that ran and exited between two readings: its reaper (the worker) gained all of it
    const q = cpuPartsSince(s, tree({ 10: [0], 20: [0, 250] }), workers());
    // 21 had 100 counted (its reaped), its exit moves 100 + whatever to the worker's reaped (250): 150 new
    expect(q.sandboxes).toBeCloseTo(1.5);
  });

  it("what other workers start (the metrics worker's nvidia-smi) is theirs, not a sandbox", () => {
    const s = newCpuPartsState();
    const procs = (own: number, reaped: number, child?: number): ProcTimes[] => [
      { pid: 10, ppid: 1, own: 0, reaped: 0 },
      { pid: 30, ppid: 10, own, reaped },
      ...(child === undefined ? [] : [{ pid: 31, ppid: 30, own: child, reaped: 0 }]),
    ];
    cpuPartsSince(s, procs(0, 0, 0), workers());
    const p = cpuPartsSince(s, procs(50, 20), workers()); // it used 50, its child 20 and exited
    expect(p).toEqual({ workers: 0.7, learner: 0, sandboxes: 0, platform: 0 });
  });

  it("the learner is never more than its workers' own time", () => {
    const s = newCpuPartsState();
    cpuPartsSince(s, tree({ 10: [0], 20: [0] }), workers(0));
    const p = cpuPartsSince(s, tree({ 10: [0], 20: [100] }), workers(5));
    expect(p.learner).toBeCloseTo(1);
    expect(p.workers).toBe(0);
  });
});
