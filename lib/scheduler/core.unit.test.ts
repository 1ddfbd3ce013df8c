import { describe, expect, it } from 'vitest';
import { defaultConfig, parseSchedulerConfig } from './config';
import { schedule } from './core';
import type { Resources } from '@/core/resources';
import type { NodeInfo, PendingWorkload, RunningWorkload, SchedulerConfig, SchedulerState } from './types';

const NOW = 1_000_000_000;
const res = (r: Partial<Resources>): Resources => ({ cpu: 0, memoryMb: 0, gpu: 0, gpuMemoryMb: 0, diskMb: 0, ...r });
const cpuNode = (id: string, cpu = 8, over: Partial<NodeInfo> = {}): NodeInfo => ({
  id,
  capacity: res({ cpu, memoryMb: cpu * 4096, diskMb: 100_000 }),
  heartbeatAt: NOW,
  ...over,
});
let seq = 0;
const pending = (tier: string, cpu: number, over: Partial<PendingWorkload> = {}): PendingWorkload => ({
  id: `p${++seq}`,
  runId: 'run-a',
  tier,
  request: res({ cpu, memoryMb: cpu * 1024 }),
  createdAt: NOW - 1000 + seq,
  ...over,
});
const running = (tier: string, cpu: number, nodeId: string, over: Partial<RunningWorkload> = {}): RunningWorkload => ({
  id: `r${++seq}`,
  runId: 'run-b',
  tier,
  request: res({ cpu, memoryMb: cpu * 1024 }),
  createdAt: NOW - 3_600_000,
  nodeId,
  startedAt: NOW - 600_000,
  ...over,
});
/** Tiers without quotas and without a reserve: isolates ordering and placement. */
const plain = (over: Partial<SchedulerConfig> = {}): SchedulerConfig =>
  parseSchedulerConfig({
    tiers: [
      { name: 'critical', rank: 2, useReserve: true },
      { name: 'standard', rank: 1 },
      { name: 'best-effort', rank: 0, canPreempt: false },
    ],
    reserveFraction: 0,
    ...over,
  });
const state = (s: Partial<SchedulerState>): SchedulerState => ({
  now: NOW,
  nodes: [],
  pending: [],
  running: [],
  config: plain(),
  ...s,
});
const admittedIds = (s: SchedulerState) => schedule(s).admissions.map((a) => a.workloadId);

describe('scheduling core', () => {
  it('admits by tier, then priority class, then age', () => {
    const be = pending('best-effort', 2, { createdAt: NOW - 9000 });
    const stdLow = pending('standard', 2, { createdAt: NOW - 8000 });
    const stdHigh = pending('standard', 2, { priority: 5, createdAt: NOW - 10 });
    const crit = pending('critical', 2, { createdAt: NOW - 1 });
    const stdOld = pending('standard', 2, { createdAt: NOW - 9999 });
    // Room for three: critical, then the high-priority standard, then the oldest standard.
    const ids = admittedIds(state({ nodes: [cpuNode('n1', 6)], pending: [be, stdLow, stdHigh, crit, stdOld] }));
    expect(ids).toEqual([crit.id, stdHigh.id, stdOld.id]);
  });

  it('never exceeds node capacity or queue quota (randomised)', () => {
    let x = 42;
    const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const nodes = Array.from({ length: 20 }, (_, i) => cpuNode(`n${i}`, 4 + Math.floor(rnd() * 28)));
    const config = parseSchedulerConfig({
      tiers: [
        { name: 'standard', rank: 1 },
        { name: 'best-effort', rank: 0 },
      ],
      queues: [
        { name: 'standard', tier: 'standard', nominal: { cpu: 120 } },
        { name: 'best-effort', tier: 'best-effort', nominal: { cpu: 60 } },
      ],
      reserveFraction: 0,
    });
    const work = Array.from({ length: 400 }, () =>
      pending(rnd() < 0.5 ? 'standard' : 'best-effort', 1 + Math.floor(rnd() * 6), { runId: `run${Math.floor(rnd() * 5)}` }),
    );
    const s = state({ nodes, pending: work, config });
    const result = schedule(s);
    const byId = new Map(work.map((w) => [w.id, w]));
    const perNode = new Map<string, number>();
    const perTier = new Map<string, number>();
    for (const a of result.admissions) {
      const w = byId.get(a.workloadId)!;
      perNode.set(a.nodeId, (perNode.get(a.nodeId) ?? 0) + w.request.cpu);
      perTier.set(w.tier, (perTier.get(w.tier) ?? 0) + w.request.cpu);
    }
    for (const n of nodes) expect(perNode.get(n.id) ?? 0).toBeLessThanOrEqual(n.capacity.cpu);
    expect(perTier.get('standard')).toBeLessThanOrEqual(120);
    expect(perTier.get('best-effort')).toBeLessThanOrEqual(60);
    expect(perTier.get('standard')).toBeGreaterThan(110); // and it does fill the quota
    expect(result.stats.decisions).toBe(400);
    expect(result.waiting.filter((w) => w.reason === 'quota').length).toBeGreaterThan(0);
  });

  it('packs nodes best-fit, leaving the big hole for the big workload', () => {
    const nodes = [cpuNode('big', 16), cpuNode('small', 4)];
    const small = pending('standard', 4, { createdAt: NOW - 2 });
    const big = pending('standard', 16, { createdAt: NOW - 1 });
    const r = schedule(state({ nodes, pending: [small, big] }));
    expect(r.admissions).toEqual([
      expect.objectContaining({ workloadId: small.id, nodeId: 'small' }),
      expect.objectContaining({ workloadId: big.id, nodeId: 'big' }),
    ]);
  });

  it('keeps GPU nodes for GPU work while CPU nodes exist', () => {
    const gpu: NodeInfo = { id: 'g1', capacity: res({ cpu: 32, memoryMb: 262144, gpu: 8, gpuMemoryMb: 8 * 81920, diskMb: 1e6 }), heartbeatAt: NOW };
    const cpuWork = pending('standard', 4);
    const gpuWork = pending('standard', 4, { request: res({ cpu: 4, memoryMb: 8192, gpu: 1, gpuMemoryMb: 81920 }) });
    const r = schedule(state({ nodes: [gpu, cpuNode('c1', 2)], pending: [cpuWork, gpuWork] }));
    expect(r.admissions.map((a) => [a.workloadId, a.nodeId])).toEqual([[gpuWork.id, 'g1']]);
    expect(r.waiting).toEqual([{ workloadId: cpuWork.id, reason: 'capacity' }]);
  });

  it('keeps the reserve from lower tiers but gives it to critical at once', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => cpuNode(`n${i}`, 10)); // 100 cpu
    const config = defaultConfig(res({ cpu: 100, memoryMb: 100 * 4096, diskMb: 1e6 }), { minRunTimeMs: 0 });
    const flood = Array.from({ length: 200 }, () => pending('best-effort', 1));
    const first = schedule(state({ nodes, pending: flood, config }));
    const beCpu = first.admissions.length;
    expect(beCpu).toBe(70); // 30% reserve untouched by best-effort (quota allows 70 by borrowing)
    expect(first.waiting.some((w) => w.reason === 'reserve' || w.reason === 'quota')).toBe(true);

    // Now a critical burst of 30 cpu arrives while the best-effort backlog is still there.
    const adm = new Map(first.admissions.map((a) => [a.workloadId, a.nodeId]));
    const run: RunningWorkload[] = flood.filter((w) => adm.has(w.id)).map((w) => ({ ...w, nodeId: adm.get(w.id)!, startedAt: NOW }));
    const burst = Array.from({ length: 30 }, () => pending('critical', 1));
    const rest = flood.filter((w) => !adm.has(w.id));
    const second = schedule(state({ nodes, pending: [...rest, ...burst], running: run, config }));
    expect(second.admissions.map((a) => a.workloadId).sort()).toEqual(burst.map((b) => b.id).sort());
    expect(second.preemptions).toEqual([]);
  });

  it('lends idle quota inside a cohort and takes it back when the lender needs it', () => {
    const nodes = Array.from({ length: 4 }, (_, i) => cpuNode(`n${i}`, 10)); // 40 cpu
    const config = parseSchedulerConfig({
      tiers: [
        { name: 'team-a', rank: 1 },
        { name: 'team-b', rank: 1 },
      ],
      queues: [
        { name: 'team-a', tier: 'team-a', cohort: 'c', nominal: { cpu: 20 }, borrowingLimit: { cpu: 15 } },
        { name: 'team-b', tier: 'team-b', cohort: 'c', nominal: { cpu: 20 }, borrowingLimit: { cpu: 20 } },
      ],
      reserveFraction: 0,
      minRunTimeMs: 1000,
    });
    // team-b alone: borrows team-a's idle quota up to its limit (40 > 20 nominal).
    const bWork = Array.from({ length: 50 }, (_, i) => pending('team-b', 1, { createdAt: NOW - 100_000 + i }));
    const first = schedule(state({ nodes, pending: bWork, config }));
    expect(first.admissions).toHaveLength(40);
    expect(first.admissions.at(-1)!.borrowing).toBe(true);
    expect(first.admissions[0]?.borrowing).toBe(false);

    // team-a submits 10: it reclaims its nominal quota from the borrowed part, newest first.
    const adm = new Map(first.admissions.map((a) => [a.workloadId, a.nodeId]));
    const run: RunningWorkload[] = bWork
      .filter((w) => adm.has(w.id))
      .map((w, i) => ({
        ...w,
        nodeId: adm.get(w.id)!,
        startedAt: NOW - 50_000 + i, // later in the list = newer
      }));
    const aWork = Array.from({ length: 10 }, () => pending('team-a', 1));
    const second = schedule(state({ nodes, pending: aWork, running: run, config }));
    expect(second.admissions).toHaveLength(10);
    expect(second.preemptions).toHaveLength(10);
    expect(second.preemptions.every((p) => p.reason === 'reclaim')).toBe(true);
    const newest10 = run
      .slice(-10)
      .map((r) => r.id)
      .sort();
    expect(second.preemptions.map((p) => p.workloadId).sort()).toEqual(newest10);
    // team-b is never pushed below its own nominal: a huge team-a demand stops at 20.
    const more = Array.from({ length: 30 }, () => pending('team-a', 1));
    const third = schedule(state({ nodes, pending: more, running: run, config }));
    expect(third.admissions).toHaveLength(20);
    expect(third.preemptions).toHaveLength(20);
  });

  it('preempts the smallest set of lower-priority work, newest first', () => {
    // n1 holds one 8-cpu job (old); n2 holds four 2-cpu jobs of various ages; critical needs 4.
    const nodes = [cpuNode('n1', 8), cpuNode('n2', 8)];
    const old8 = running('best-effort', 8, 'n1', { startedAt: NOW - 900_000 });
    const twos = [1, 2, 3, 4].map((i) => running('standard', 2, 'n2', { startedAt: NOW - 100_000 * i }));
    const crit = pending('critical', 4);
    const r = schedule(state({ nodes, running: [old8, ...twos], pending: [crit] }));
    expect(r.admissions).toEqual([{ workloadId: crit.id, nodeId: 'n1', preempts: [old8.id], borrowing: false }]);
    expect(r.preemptions).toEqual([expect.objectContaining({ workloadId: old8.id, byWorkloadId: crit.id, reason: 'priority' })]);

    // Needing 6 cpu on a node of four 2-cpu jobs: the three newest go, never the oldest.
    const r2 = schedule(state({ nodes: [cpuNode('n2', 8)], running: twos, pending: [pending('critical', 6)] }));
    expect(r2.preemptions.map((p) => p.workloadId).sort()).toEqual([twos[0]?.id, twos[1]?.id, twos[2]?.id].sort());

    // Equal priority never preempts; best-effort (canPreempt false) never preempts.
    const r3 = schedule(state({ nodes: [cpuNode('n2', 8)], running: twos, pending: [pending('standard', 6), pending('best-effort', 2)] }));
    expect(r3.preemptions).toEqual([]);
  });

  it('does not thrash: young workloads are safe, victims back off exponentially', () => {
    const config = plain({ minRunTimeMs: 60_000, backoff: { baseMs: 5_000, maxMs: 40_000 } });
    const young = running('best-effort', 8, 'n1', { startedAt: NOW - 30_000 });
    const crit = pending('critical', 8);
    const r = schedule(state({ nodes: [cpuNode('n1', 8)], running: [young], pending: [crit], config }));
    expect(r.preemptions).toEqual([]);
    expect(r.waiting).toEqual([{ workloadId: crit.id, reason: 'capacity' }]);

    const old = { ...young, startedAt: NOW - 61_000, preemptions: 3 };
    const r2 = schedule(state({ nodes: [cpuNode('n1', 8)], running: [old], pending: [crit], config }));
    expect(r2.preemptions[0]).toMatchObject({ retryAt: NOW + 40_000, preemptions: 4 }); // 5s·2³ capped at 40s
    const first = schedule(state({ nodes: [cpuNode('n1', 8)], running: [{ ...old, preemptions: 0 }], pending: [crit], config }));
    expect(first.preemptions[0]).toMatchObject({ retryAt: NOW + 5_000, preemptions: 1 });

    // Backing-off work waits even with room, and is not counted as a decision.
    const backing = pending('best-effort', 1, { notBefore: NOW + 1 });
    const r3 = schedule(state({ nodes: [cpuNode('n1', 8)], pending: [backing], config }));
    expect(r3.waiting).toEqual([{ workloadId: backing.id, reason: 'backoff' }]);
    expect(r3.stats.decisions).toBe(0);
  });

  it('requeues the work of a node whose lease ran out, and places nothing there', () => {
    const config = plain({ leaseMs: 30_000 });
    const lost = cpuNode('lost', 8, { heartbeatAt: NOW - 31_000 });
    const late = cpuNode('late', 8, { heartbeatAt: NOW - 29_000 }); // silent, but inside its lease
    const a = running('standard', 4, 'lost');
    const b = running('standard', 4, 'late');
    const p = pending('standard', 4);
    const r = schedule(state({ nodes: [lost, late], running: [a, b], pending: [p], config }));
    expect(r.requeues).toEqual([expect.objectContaining({ workloadId: a.id, nodeId: 'lost', reason: 'node-lost' })]);
    expect(r.requeues[0]?.message).toMatch(/no heartbeat for 31 s/);
    // 'late' keeps its work but, suspect, takes nothing new though 4 cpu are free; 'lost' is gone.
    expect(r.admissions).toEqual([]);
    expect(r.waiting).toEqual([{ workloadId: p.id, reason: 'capacity' }]);
    const fresh = schedule(state({ nodes: [lost, late, cpuNode('fresh', 4)], running: [a, b], pending: [p], config }));
    expect(fresh.admissions).toEqual([expect.objectContaining({ workloadId: p.id, nodeId: 'fresh' })]);
  });

  it('shares a tier fairly between runs (dominant resource fairness)', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => cpuNode(`n${i}`, 10)); // 100 cpu, 400 GiB
    // Run A came first with 500 cpu-heavy tasks; run B later with 500 memory-heavy ones.
    const a = Array.from({ length: 500 }, (_, i) =>
      pending('standard', 1, { runId: 'A', createdAt: NOW - 90_000 + i, request: res({ cpu: 1, memoryMb: 512 }) }),
    );
    const b = Array.from({ length: 500 }, (_, i) =>
      pending('standard', 1, { runId: 'B', createdAt: NOW - 10_000 + i, request: res({ cpu: 0.25, memoryMb: 4096 }) }),
    );
    const r = schedule(state({ nodes, pending: [...a, ...b] }));
    const aIds = new Set(a.map((w) => w.id));
    const nA = r.admissions.filter((x) => aIds.has(x.workloadId)).length;
    const nB = r.admissions.length - nA;
    const shareA = nA / 100; // cpu is A's dominant resource
    const shareB = (nB * 4096) / (400 * 1024); // memory is B's
    expect(Math.abs(shareA - shareB)).toBeLessThan(0.05);
    expect(nA).toBeGreaterThan(30);
  });

  it('holds a node for an aged big workload so small ones stop refilling it', () => {
    const config = plain({ minRunTimeMs: 0 });
    const bound = config.tiers.find((t) => t.name === 'standard')!.starvationBoundMs;
    // Two 8-cpu nodes, each half busy; a stream of small standard work would keep both half full.
    const nodes = [cpuNode('n1', 8), cpuNode('n2', 8)];
    const busy = [running('standard', 4, 'n1', { startedAt: NOW - 1000 }), running('standard', 5, 'n2', { startedAt: NOW - 1000 })];
    const big = pending('standard', 8, { runId: 'big', createdAt: NOW - bound, queuedAt: NOW - bound });
    const smalls = Array.from({ length: 6 }, () => pending('standard', 1, { runId: 'small' }));
    const r = schedule(state({ nodes, running: busy, pending: [big, ...smalls], config }));
    // n1 (the emptier) is held for the big one; smalls only fill n2, nothing is preempted.
    expect(r.admissions.every((a) => a.nodeId === 'n2')).toBe(true);
    expect(r.admissions).toHaveLength(3);
    expect(r.preemptions).toEqual([]);
    // A young big workload holds nothing: the smalls use both nodes.
    const young = schedule(state({ nodes, running: busy, pending: [{ ...big, createdAt: NOW, queuedAt: NOW }, ...smalls], config }));
    expect(young.admissions).toHaveLength(6);
  });

  it('is pure: its input is left untouched', () => {
    const s = state({ nodes: [cpuNode('n1', 8)], running: [running('best-effort', 8, 'n1')], pending: [pending('critical', 4)] });
    const before = JSON.stringify(s);
    expect(schedule(s).preemptions).toHaveLength(1);
    expect(JSON.stringify(s)).toBe(before);
  });

  it('rejects a bad configuration with a clear message', () => {
    expect(() => parseSchedulerConfig({ tiers: [{ name: 'a', rank: 1 }], queues: [{ name: 'q', tier: 'nope' }] })).toThrow(/unknown tier nope/);
    expect(() => parseSchedulerConfig({ tiers: [] })).toThrow(/invalid scheduler config/);
  });
});
