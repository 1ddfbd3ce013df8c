import { z } from 'zod';
import { defaultConfig } from './config';
import { schedule } from './core';
import { Heap } from './heap';
import { Rng } from '@/core/random';
import { addInto, zero } from './resources';
import { jain, percentile } from './stats';
import type { Resources } from '@/core/resources';
import { must } from '@/core/must';
import type { NodeInfo, SchedulerConfig } from './types';

// A simulated cluster in virtual time driving the real scheduling core. Every tick the core
// gets the whole state (as the live loop would read it from the database) and its decisions
// are applied: admissions start (after the victims' grace period when they preempt), victims
// are stopped and requeued with backoff, lost nodes' work is requeued. Best-effort and
// standard runs are closed loops keeping a fixed number of tasks outstanding (a saturating
// backlog); critical work arrives in seeded bursts; nodes fail and come back.

export const simOptionsSchema = z.object({
  seed: z.number().int().default(1),
  nodes: z.number().int().min(10).default(1000),
  gpuNodeFraction: z.number().min(0).max(1).default(0.2),
  /** Tasks outstanding (waiting or running) across the closed-loop runs. */
  tasks: z.number().int().min(100).default(16_000),
  durationS: z.number().positive().default(1200),
  warmupS: z.number().nonnegative().default(120),
  tickMs: z.number().positive().default(250),
  reserveFraction: z.number().min(0).max(0.9).default(0.3),
  /** Mean time between failures of one node. */
  nodeMtbfS: z.number().positive().default(60_000),
  repairS: z.number().positive().default(300),
  leaseS: z.number().positive().default(30),
  graceS: z.number().nonnegative().default(0.5),
  minRunTimeS: z.number().nonnegative().default(10),
  burstEveryS: z.number().positive().default(90),
  /** Largest critical burst, as a fraction of the cluster. */
  burstMax: z.number().min(0).max(1).default(0.45),
  buckets: z.number().int().min(10).max(1000).default(120),
});
export type SimOptions = z.infer<typeof simOptionsSchema>;

const res = (r: Partial<Resources>): Resources => ({ ...zero(), ...r });
const CPU_NODE = res({ cpu: 32, memoryMb: 131_072, diskMb: 512_000 });
const GPU_NODE = res({ cpu: 64, memoryMb: 524_288, gpu: 8, gpuMemoryMb: 655_360, diskMb: 2_048_000 });

interface Kind {
  name: string;
  request: (r: Rng) => Resources;
  medianS: number;
  sigma: number;
}
const KINDS = {
  sandbox: {
    name: 'sandbox',
    medianS: 45,
    sigma: 0.6,
    request: (r) => {
      const c = r.pick([1, 1, 1, 2, 2, 3]);
      return res({ cpu: c, memoryMb: c * 2048, diskMb: 10_240 });
    },
  },
  rollout: { name: 'rollout', medianS: 90, sigma: 0.5, request: () => res({ cpu: 6, memoryMb: 32_768, gpu: 1, gpuMemoryMb: 81_920, diskMb: 20_480 }) },
  learner: { name: 'learner', medianS: 240, sigma: 0.3, request: () => res({ cpu: 32, memoryMb: 262_144, gpu: 8, gpuMemoryMb: 655_360, diskMb: 102_400 }) },
  evalCpu: {
    name: 'eval',
    medianS: 20,
    sigma: 0.5,
    request: (r) => {
      const c = r.pick([1, 2]);
      return res({ cpu: c, memoryMb: c * 2048, diskMb: 4096 });
    },
  },
  evalGpu: { name: 'eval-gpu', medianS: 20, sigma: 0.5, request: () => res({ cpu: 4, memoryMb: 16_384, gpu: 1, gpuMemoryMb: 81_920, diskMb: 4096 }) },
} satisfies Record<string, Kind>;

/** Closed-loop runs per tier: relative outstanding size and the mix of kinds. */
const LOOPS: readonly { tier: SimTier; share: number; weights: readonly number[]; mix: readonly (readonly [Kind, number])[] }[] = [
  {
    tier: 'best-effort',
    share: 0.6,
    weights: [4, 2, 1, 1, 1, 1, 1, 1],
    mix: [
      [KINDS.sandbox, 0.85],
      [KINDS.rollout, 0.15],
    ],
  },
  {
    tier: 'standard',
    share: 0.4,
    weights: [2, 1, 1, 1],
    mix: [
      [KINDS.sandbox, 0.8],
      [KINDS.rollout, 0.195],
      [KINDS.learner, 0.005],
    ],
  },
];
export const SIM_TIERS = ['critical', 'standard', 'best-effort'] as const;
export type SimTier = (typeof SIM_TIERS)[number];
const TIERS = SIM_TIERS;
/** One value per tier, built by `f`: a typed record with every tier present. */
function perTier<T>(f: (tier: SimTier) => T): Record<SimTier, T> {
  return { critical: f('critical'), standard: f('standard'), 'best-effort': f('best-effort') };
}

interface SimTask {
  id: string;
  runId: string;
  tier: SimTier;
  priority: number;
  request: Resources;
  createdAt: number;
  kind: Kind;
  durationMs: number;
  queuedAt: number;
  closedLoop: boolean;
  notBefore?: number;
  preemptions: number;
  nodeId: string;
  startedAt: number;
  evicting: boolean;
  /** Bumped whenever the task stops, so stale completion events are ignored. */
  epoch: number;
  lost: boolean;
}
interface SimNode extends NodeInfo {
  alive: boolean;
  gpuPool: boolean;
}
type Event =
  | { at: number; type: 'complete' | 'evicted'; task: SimTask; epoch: number }
  | { at: number; type: 'fail' | 'recover'; node: SimNode }
  | { at: number; type: 'burst' };

export interface TierReport {
  admitted: number;
  waitS: { p50: number; p95: number; p99: number; max: number };
  /** Longest stretch with admissible work waiting and none of this tier admitted. */
  maxServiceGapS: number;
  starvationBoundS: number;
  /** The longest wait or the longest service gap went past the tier's bound. */
  starved: boolean;
  /** Jain's index over the runs' mean dominant share, runs backlogged ≥ 90% of the time. */
  fairness: number | null;
  meanRunning: number;
}
export interface SimReport {
  options: SimOptions;
  cluster: { nodes: number; gpuNodes: number; capacity: Resources };
  /** Share of the non-reserved capacity in use, sampled while that pool had a backlog. */
  utilisation: { cpu: number; gpu: number; memory: number; backlogSamplesCpu: number; backlogSamplesGpu: number };
  concurrency: { meanRunning: number; peakRunning: number; meanPending: number };
  tiers: Record<SimTier, TierReport>;
  preemptions: { priority: number; reclaim: number; total: number; wastedCpuHours: number };
  nodeFailures: number;
  requeuedByNodeLoss: number;
  completed: number;
  scheduler: { calls: number; meanMs: number; p99Ms: number; maxMs: number; decisions: number };
  wallS: number;
  series: SimSeries;
}
export interface SimSeries {
  t: number[];
  utilCpu: number[];
  utilGpu: number[];
  running: Record<SimTier, number[]>;
  pending: Record<SimTier, number[]>;
  preemptions: number[];
  criticalWaitP99: number[];
}

export function runSimulation(input: Partial<SimOptions> = {}): SimReport {
  const o = simOptionsSchema.parse(input);
  const started = performance.now();
  const rnd = new Rng(o.seed);
  const tick = o.tickMs;
  const endMs = o.durationS * 1000;
  const warm = o.warmupS * 1000;

  // Cluster.
  const nodes: SimNode[] = [];
  const gpuCount = Math.round(o.nodes * o.gpuNodeFraction);
  const capacity = zero();
  for (let i = 0; i < o.nodes; i++) {
    const gpu = i < gpuCount;
    const cap = { ...(gpu ? GPU_NODE : CPU_NODE) };
    nodes.push({ id: `${gpu ? 'g' : 'c'}${i}`, capacity: cap, heartbeatAt: 0, alive: true, gpuPool: gpu });
    addInto(capacity, cap);
  }
  const nodeById = new Map(nodes.map((n) => [n.id, n]));
  const config: SchedulerConfig = defaultConfig(capacity, {
    reserveFraction: o.reserveFraction,
    leaseMs: o.leaseS * 1000,
    suspectAfterMs: Math.max(2 * tick, 1000),
    minRunTimeMs: o.minRunTimeS * 1000,
    backoff: { baseMs: 2_000, maxMs: 60_000 },
  });
  const bound = new Map(config.tiers.map((t) => [t.name, t.starvationBoundMs]));

  const events = new Heap<Event>((a, b) => a.at < b.at);
  const pending = new Set<SimTask>();
  const running = new Set<SimTask>();
  let seq = 0;
  const submit = (at: number, tier: SimTier, runId: string, kind: Kind, closedLoop: boolean) => {
    const t: SimTask = {
      id: `t${++seq}`,
      runId,
      tier,
      priority: 0,
      request: kind.request(rnd),
      createdAt: at,
      kind,
      durationMs: Math.max(1000, rnd.lognormal(kind.medianS * 1000, kind.sigma)),
      queuedAt: at,
      closedLoop,
      preemptions: 0,
      nodeId: '',
      startedAt: 0,
      evicting: false,
      epoch: 0,
      lost: false,
    };
    pending.add(t);
  };

  // Closed loops: each run's slots, by kind, refilled on completion.
  const runIds = perTier((): string[] => []);
  for (const loop of LOOPS) {
    const total = o.tasks * loop.share;
    const wsum = loop.weights.reduce((a, b) => a + b, 0);
    loop.weights.forEach((w, i) => {
      const runId = `${loop.tier}-run${i + 1}`;
      runIds[loop.tier].push(runId);
      const n = Math.round((total * w) / wsum);
      for (const [kind, f] of loop.mix) {
        for (let j = 0; j < Math.round(n * f); j++) submit(rnd.uniform(0, 5000), loop.tier, runId, kind, true);
      }
    });
  }
  for (const n of nodes) events.push({ at: rnd.exponential(o.nodeMtbfS * 1000), type: 'fail', node: n });
  events.push({ at: warm / 2 + rnd.exponential(o.burstEveryS * 1000), type: 'burst' });

  const cpuPoolCpu = nodes.filter((n) => !n.gpuPool).reduce((a, n) => a + n.capacity.cpu, 0);
  const gpuPoolGpu = gpuCount * GPU_NODE.gpu;

  // Measurements.
  const waits = perTier((): number[] => []);
  const admittedCount = zero3();
  const lastServed = zero3();
  const maxGap = zero3();
  const runningSum = zero3();
  const shareSum = new Map<string, number>();
  const backloggedTicks = new Map<string, number>();
  let utilCpuSum = 0,
    utilGpuSum = 0,
    utilMemSum = 0,
    cpuSamples = 0,
    gpuSamples = 0,
    samples = 0;
  let runSum = 0,
    peak = 0,
    pendSum = 0;
  const pre = { priority: 0, reclaim: 0, wastedCpuMs: 0 };
  let nodeFailures = 0,
    requeued = 0,
    completed = 0,
    decisions = 0;
  const callMs: number[] = [];
  const bucketMs = (endMs - warm) / o.buckets;
  const series: SimSeries = {
    t: [],
    utilCpu: [],
    utilGpu: [],
    preemptions: [],
    criticalWaitP99: [],
    running: perTier(() => []),
    pending: perTier(() => []),
  };
  let bucket = { n: 0, cpu: 0, cpuN: 0, gpu: 0, gpuN: 0, pre: 0, waits: [] as number[], run: zero3(), pend: zero3() };

  const stop = (t: SimTask) => {
    running.delete(t);
    t.epoch++;
    t.evicting = false;
    t.lost = false;
    t.nodeId = '';
  };

  for (let now = 0; now <= endMs; now += tick) {
    // 1. Events up to now.
    for (let ev = events.pop(); ev; ev = events.pop()) {
      if (ev.at > now) {
        events.push(ev);
        break;
      }
      if (ev.type === 'complete') {
        const t = ev.task;
        if (t.epoch !== ev.epoch || t.lost || !running.has(t)) continue;
        stop(t);
        completed++;
        if (t.closedLoop) submit(ev.at, t.tier, t.runId, t.kind, true);
      } else if (ev.type === 'evicted') {
        const t = ev.task;
        if (t.epoch !== ev.epoch) continue;
        pre.wastedCpuMs += (ev.at - t.startedAt) * t.request.cpu;
        stop(t);
        t.queuedAt = ev.at;
        pending.add(t);
      } else if (ev.type === 'fail') {
        const n = ev.node;
        n.alive = false;
        nodeFailures++;
        for (const t of running) if (t.nodeId === n.id) t.lost = true;
        events.push({ at: ev.at + o.repairS * 1000, type: 'recover', node: n });
      } else if (ev.type === 'recover') {
        ev.node.alive = true;
        ev.node.heartbeatAt = ev.at;
        events.push({ at: ev.at + rnd.exponential(o.nodeMtbfS * 1000), type: 'fail', node: ev.node });
      } else {
        // A critical burst: evaluations on CPUs and on GPUs, up to burstMax of the cluster.
        const f = rnd.uniform(0.05, o.burstMax);
        const runId = `critical-burst${++seq}`;
        runIds.critical.push(runId);
        for (let i = 0; i < Math.round((f * cpuPoolCpu) / 1.5); i++) submit(ev.at, 'critical', runId, KINDS.evalCpu, false);
        for (let i = 0; i < Math.round(f * gpuPoolGpu * 0.5); i++) submit(ev.at, 'critical', runId, KINDS.evalGpu, false);
        events.push({ at: ev.at + rnd.exponential(o.burstEveryS * 1000), type: 'burst' });
      }
    }
    for (const n of nodes) if (n.alive) n.heartbeatAt = now;

    // 2. The scheduling core decides.
    const c0 = performance.now();
    const result = schedule({ now, nodes, pending: [...pending], running: [...running], config });
    callMs.push(performance.now() - c0);
    decisions += result.stats.decisions;

    // 3. Apply its decisions.
    const byId = new Map<string, SimTask>();
    for (const t of pending) byId.set(t.id, t);
    for (const t of running) byId.set(t.id, t);
    // The core decides only about workloads it was given, so every id it returns is known here.
    const task = (id: string) => must(byId.get(id), `simulated task ${id} (returned by the scheduling core)`);
    for (const r of result.requeues) {
      const t = task(r.workloadId);
      stop(t);
      t.queuedAt = now;
      pending.add(t);
      requeued++;
    }
    for (const p of result.preemptions) {
      const t = task(p.workloadId);
      t.evicting = true;
      t.notBefore = p.retryAt;
      t.preemptions = p.preemptions;
      t.epoch++;
      events.push({ at: now + o.graceS * 1000, type: 'evicted', task: t, epoch: t.epoch });
      pre[p.reason]++;
      bucket.pre++;
    }
    const admittedNow = new Set<string>();
    for (const a of result.admissions) {
      const t = task(a.workloadId);
      pending.delete(t);
      running.add(t);
      t.nodeId = a.nodeId;
      t.startedAt = now;
      t.lost = !must(nodeById.get(a.nodeId), `simulated node ${a.nodeId}`).alive; // placed on a node that died unnoticed
      const workStart = now + (a.preempts.length ? o.graceS * 1000 : 0);
      events.push({ at: workStart + t.durationMs, type: 'complete', task: t, epoch: t.epoch });
      admittedNow.add(t.tier);
      if (now >= warm) {
        const w = (workStart - t.queuedAt) / 1000;
        waits[t.tier].push(w);
        admittedCount[t.tier]++;
        if (t.tier === 'critical') bucket.waits.push(w);
      }
    }

    // 4. Sample.
    if (now < warm) {
      for (const tier of TIERS) lastServed[tier] = now;
      continue;
    }
    const waitingByTier = zero3();
    const backlogCpu = { v: false };
    const backlogGpu = { v: false };
    const runBacklog = new Set<string>();
    for (const t of pending) {
      if (t.notBefore !== undefined && t.notBefore > now) continue;
      waitingByTier[t.tier]++;
      runBacklog.add(t.runId);
      if (t.tier !== 'critical') (t.request.gpu > 0 ? backlogGpu : backlogCpu).v = true;
    }
    for (const tier of TIERS) {
      if (waitingByTier[tier] === 0 || admittedNow.has(tier)) lastServed[tier] = now;
      maxGap[tier] = Math.max(maxGap[tier], now - lastServed[tier]);
    }
    const used = { cpuLower: 0, cpuCrit: 0, gpuLower: 0, gpuCrit: 0, memLower: 0, memCrit: 0 };
    const perRun = new Map<string, Resources>();
    const runByTier = zero3();
    for (const t of running) {
      const n = must(nodeById.get(t.nodeId), `simulated node ${t.nodeId} of running task ${t.id}`);
      if (!n.alive || t.lost) continue;
      runByTier[t.tier]++;
      const crit = t.tier === 'critical';
      if (n.gpuPool) {
        if (crit) used.gpuCrit += t.request.gpu;
        else used.gpuLower += t.request.gpu;
      } else if (crit) {
        used.cpuCrit += t.request.cpu;
        used.memCrit += t.request.memoryMb;
      } else {
        used.cpuLower += t.request.cpu;
        used.memLower += t.request.memoryMb;
      }
      let r = perRun.get(t.runId);
      if (!r) perRun.set(t.runId, (r = zero()));
      addInto(r, t.request);
    }
    let aliveCpu = 0,
      aliveGpu = 0,
      aliveMem = 0;
    for (const n of nodes) {
      if (!n.alive) continue;
      if (n.gpuPool) aliveGpu += n.capacity.gpu;
      else {
        aliveCpu += n.capacity.cpu;
        aliveMem += n.capacity.memoryMb;
      }
    }
    // Critical work counts against the reserve first; what it takes beyond is non-reserved use.
    const nonReserved = (lower: number, crit: number, cap: number) =>
      cap > 0 ? Math.min(1, (lower + Math.max(0, crit - o.reserveFraction * cap)) / ((1 - o.reserveFraction) * cap)) : 0;
    const uCpu = nonReserved(used.cpuLower, used.cpuCrit, aliveCpu);
    const uGpu = nonReserved(used.gpuLower, used.gpuCrit, aliveGpu);
    if (backlogCpu.v) {
      utilCpuSum += uCpu;
      cpuSamples++;
      bucket.cpu += uCpu;
      bucket.cpuN++;
      utilMemSum += nonReserved(used.memLower, used.memCrit, aliveMem);
    }
    if (backlogGpu.v) {
      utilGpuSum += uGpu;
      gpuSamples++;
      bucket.gpu += uGpu;
      bucket.gpuN++;
    }
    samples++;
    runSum += running.size;
    peak = Math.max(peak, running.size);
    pendSum += pending.size;
    for (const tier of TIERS) {
      runningSum[tier] += runByTier[tier];
      bucket.run[tier] += runByTier[tier];
      bucket.pend[tier] += waitingByTier[tier];
    }
    bucket.n++;
    // Fairness: each closed-loop run's dominant share of the cluster, while it has a backlog.
    for (const tier of ['standard', 'best-effort'] as const) {
      for (const runId of runIds[tier]) {
        const r = perRun.get(runId) ?? zero();
        const share = Math.max(r.cpu / capacity.cpu, capacity.gpu ? r.gpu / capacity.gpu : 0);
        shareSum.set(runId, (shareSum.get(runId) ?? 0) + share);
        if (runBacklog.has(runId)) backloggedTicks.set(runId, (backloggedTicks.get(runId) ?? 0) + 1);
      }
    }
    if (now - warm >= (series.t.length + 1) * bucketMs || now + tick > endMs) {
      series.t.push(Math.round(now / 1000));
      series.utilCpu.push(bucket.cpuN ? bucket.cpu / bucket.cpuN : NaN);
      series.utilGpu.push(bucket.gpuN ? bucket.gpu / bucket.gpuN : NaN);
      series.preemptions.push(bucket.pre);
      bucket.waits.sort((a, b) => a - b);
      series.criticalWaitP99.push(bucket.waits.length ? percentile(bucket.waits, 99) : NaN);
      for (const tier of TIERS) {
        series.running[tier].push(Math.round(bucket.run[tier] / bucket.n));
        series.pending[tier].push(Math.round(bucket.pend[tier] / bucket.n));
      }
      bucket = { n: 0, cpu: 0, cpuN: 0, gpu: 0, gpuN: 0, pre: 0, waits: [], run: zero3(), pend: zero3() };
    }
  }

  const tiers = perTier((tier): TierReport => {
    const w = waits[tier].sort((a, b) => a - b);
    const fairRuns = runIds[tier].filter((id) => (backloggedTicks.get(id) ?? 0) >= 0.9 * samples);
    const boundMs = must(bound.get(tier), `a starvation bound for tier ${tier} in the scheduler config`);
    const longest = w.at(-1) ?? NaN;
    return {
      admitted: admittedCount[tier],
      waitS: { p50: percentile(w, 50), p95: percentile(w, 95), p99: percentile(w, 99), max: longest },
      maxServiceGapS: maxGap[tier] / 1000,
      starvationBoundS: boundMs / 1000,
      starved: maxGap[tier] > boundMs || (w.length > 0 && longest * 1000 > boundMs),
      fairness: tier === 'critical' || fairRuns.length < 2 ? null : jain(fairRuns.map((id) => shareSum.get(id)! / samples)),
      meanRunning: runningSum[tier] / Math.max(1, samples),
    };
  });
  callMs.sort((a, b) => a - b);
  return {
    options: o,
    cluster: { nodes: o.nodes, gpuNodes: gpuCount, capacity },
    utilisation: {
      cpu: utilCpuSum / Math.max(1, cpuSamples),
      gpu: utilGpuSum / Math.max(1, gpuSamples),
      memory: utilMemSum / Math.max(1, cpuSamples),
      backlogSamplesCpu: cpuSamples,
      backlogSamplesGpu: gpuSamples,
    },
    concurrency: { meanRunning: runSum / Math.max(1, samples), peakRunning: peak, meanPending: pendSum / Math.max(1, samples) },
    tiers,
    preemptions: { priority: pre.priority, reclaim: pre.reclaim, total: pre.priority + pre.reclaim, wastedCpuHours: pre.wastedCpuMs / 3.6e6 },
    nodeFailures,
    requeuedByNodeLoss: requeued,
    completed,
    scheduler: {
      calls: callMs.length,
      meanMs: callMs.reduce((a, b) => a + b, 0) / Math.max(1, callMs.length),
      p99Ms: percentile(callMs, 99),
      maxMs: callMs[callMs.length - 1] ?? 0,
      decisions,
    },
    wallS: (performance.now() - started) / 1000,
    series,
  };
}

function zero3(): Record<SimTier, number> {
  return perTier(() => 0);
}
