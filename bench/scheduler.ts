import { parseArgs } from 'node:util';
import { z } from 'zod';
import { defaultConfig } from '@/lib/scheduler/config';
import { SchedulingPass } from '@/lib/scheduler/core';
import { Rng } from '@/core/random';
import { referenceFirstFit } from '@/lib/scheduler/reference-first-fit';
import { addInto, zero } from '@/lib/scheduler/resources';
import { percentile } from '@/lib/scheduler/stats';
import type { Resources } from '@/core/resources';
import type { NodeInfo, PendingWorkload, RunningWorkload, SchedulerState } from '@/lib/scheduler/types';

// `npm run bench -- scheduler [--nodes 1000] [--pending 10000] [--rounds 20] [--json]`
//
// Admission decisions per second of the scheduling core with 10,000 workloads waiting on a
// busy 1,000-node cluster, next to the straightforward linear-scan first-fit reference on the
// very same states. Each round: 5% of running work finishes (30% of the short critical work),
// the queue is topped back up to the target, and one full pass runs (setup included). Decision latency is
// each `step()` of the pass, timed on its own.

const optionsSchema = z.object({
  nodes: z.number().int().min(10).default(1000),
  pending: z.number().int().min(100).default(10_000),
  rounds: z.number().int().min(1).default(20),
  referenceRounds: z.number().int().min(1).default(5),
  seed: z.number().int().default(1),
  target: z.number().positive().default(5000),
});

const res = (r: Partial<Resources>): Resources => ({ ...zero(), ...r });
const TIER_MIX = [
  ['critical', 0.05],
  ['standard', 0.35],
  ['best-effort', 0.6],
] as const;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string' },
      pending: { type: 'string' },
      rounds: { type: 'string' },
      'reference-rounds': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  const num = (v: unknown) => (typeof v === 'string' ? Number(v) : undefined);
  const options = optionsSchema.parse({
    nodes: num(values.nodes),
    pending: num(values.pending),
    rounds: num(values.rounds),
    referenceRounds: num(values['reference-rounds']),
    seed: num(values.seed),
  });
  return { options, json: !!values.json, help: !!values.help };
}

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parse(argv);
  } catch (e) {
    console.error(
      `bench scheduler: ${(e as Error).message}\nusage: npm run bench -- scheduler [--nodes N] [--pending N] [--rounds N] [--reference-rounds N] [--seed N] [--json]`,
    );
    return 2;
  }
  if (args.help) {
    console.log('usage: npm run bench -- scheduler [--nodes N] [--pending N] [--rounds N] [--reference-rounds N] [--seed N] [--json]');
    return 0;
  }
  const o = args.options;
  const rnd = new Rng(o.seed);
  const now = 10_000_000;
  const nodes: NodeInfo[] = [];
  const total = zero();
  for (let i = 0; i < o.nodes; i++) {
    const gpu = i < o.nodes * 0.2;
    const capacity = gpu
      ? res({ cpu: 64, memoryMb: 524_288, gpu: 8, gpuMemoryMb: 655_360, diskMb: 2_048_000 })
      : res({ cpu: 32, memoryMb: 131_072, diskMb: 512_000 });
    nodes.push({ id: `n${i}`, capacity, heartbeatAt: now });
    addInto(total, capacity);
  }
  const config = defaultConfig(total, { minRunTimeMs: 30_000 });
  let seq = 0;
  const make = (): PendingWorkload => {
    const u = rnd.next();
    const tier = u < TIER_MIX[0][1] ? 'critical' : u < TIER_MIX[0][1] + TIER_MIX[1][1] ? 'standard' : 'best-effort';
    const cpu = rnd.pick([1, 1, 2, 2, 4]);
    const request =
      rnd.next() < 0.15
        ? res({ cpu: 6, memoryMb: 32_768, gpu: rnd.pick([1, 1, 2]), gpuMemoryMb: 81_920, diskMb: 20_480 })
        : res({ cpu, memoryMb: cpu * 2048, diskMb: 10_240 });
    return { id: `w${++seq}`, runId: `${tier}-run${Math.floor(rnd.next() * 8)}`, tier, request, createdAt: now - 600_000 + seq };
  };

  // Warm the cluster: fill it from an empty start, then keep the queue at its target.
  let pending: PendingWorkload[] = Array.from({ length: o.pending * 2 }, make);
  let running: RunningWorkload[] = [];
  const apply = (s: SchedulerState, r: ReturnType<SchedulingPass['result']>, t: number) => {
    const byId = new Map(s.pending.map((p) => [p.id, p]));
    const admitted = new Set(r.admissions.map((a) => a.workloadId));
    const evicted = new Set(r.preemptions.map((p) => p.workloadId));
    const back = running.filter((w) => evicted.has(w.id)).map(({ nodeId: _n, startedAt: _s, ...w }) => w);
    running = running.filter((w) => !evicted.has(w.id));
    for (const a of r.admissions) running.push({ ...byId.get(a.workloadId)!, nodeId: a.nodeId, startedAt: t - rnd.uniform(0, 120_000) });
    pending = [...pending.filter((p) => !admitted.has(p.id)), ...back];
  };
  {
    const s: SchedulerState = { now, nodes, pending, running, config };
    const pass = new SchedulingPass(s);
    while (pass.step());
    apply(s, pass.result(), now);
  }

  // Wall time and process CPU time: on a shared machine the CPU figure is the steadier one.
  const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
  const ours = { decisions: 0, ms: 0, cpuMs: 0, setupMs: 0, admitted: 0, preempted: 0, steps: [] as number[], passes: [] as number[] };
  const ref = { decisions: 0, ms: 0, cpuMs: 0, admitted: 0, steps: [] as number[], passes: [] as number[] };
  for (let round = 0; round < o.rounds; round++) {
    // 5% of running work completes (critical work, short, 30%); the queue is topped up.
    running = running.filter((w) => rnd.next() > (w.tier === 'critical' ? 0.3 : 0.05));
    pending = pending.slice(0, o.pending);
    while (pending.length < o.pending) pending.push(make());
    const state: SchedulerState = { now, nodes, pending, running, config };

    if (round < o.referenceRounds) {
      let last = performance.now();
      const t0 = last;
      const c0 = process.cpuUsage();
      const r = referenceFirstFit(state, () => {
        const t = performance.now();
        ref.steps.push(t - last);
        last = t;
      });
      const ms = performance.now() - t0;
      ref.cpuMs += cpuMs(process.cpuUsage(c0));
      ref.ms += ms;
      ref.passes.push(ms);
      ref.decisions += r.decisions;
      ref.admitted += r.admitted.size;
    }

    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const pass = new SchedulingPass(state);
    ours.setupMs += performance.now() - t0;
    for (;;) {
      const s0 = performance.now();
      if (!pass.step()) break;
      ours.steps.push(performance.now() - s0);
    }
    const result = pass.result();
    const ms = performance.now() - t0;
    ours.cpuMs += cpuMs(process.cpuUsage(c0));
    ours.ms += ms;
    ours.passes.push(ms);
    ours.decisions += result.stats.decisions;
    ours.admitted += result.stats.admitted;
    ours.preempted += result.stats.preempted;
    apply(state, result, now);
  }

  ours.steps.sort((a, b) => a - b);
  ref.steps.sort((a, b) => a - b);
  const rate = (x: { decisions: number; ms: number }) => (x.decisions / x.ms) * 1000;
  const cpuRate = (x: { decisions: number; cpuMs: number }) => (x.decisions / x.cpuMs) * 1000;
  const report = {
    nodes: o.nodes,
    pending: o.pending,
    running: running.length,
    ours: {
      rounds: o.rounds,
      decisionsPerSecond: rate(ours),
      decisionsPerCpuSecond: cpuRate(ours),
      passMsMean: ours.ms / o.rounds,
      setupMsMean: ours.setupMs / o.rounds,
      passMsP99: percentile(
        [...ours.passes].sort((a, b) => a - b),
        99,
      ),
      decisionUsP50: percentile(ours.steps, 50) * 1000,
      decisionUsP99: percentile(ours.steps, 99) * 1000,
      decisionUsMax: (ours.steps.at(-1) ?? NaN) * 1000,
      admittedPerRound: ours.admitted / o.rounds,
      preemptedPerRound: ours.preempted / o.rounds,
    },
    reference: {
      rounds: Math.min(o.rounds, o.referenceRounds),
      decisionsPerSecond: rate(ref),
      decisionsPerCpuSecond: cpuRate(ref),
      passMsMean: ref.ms / Math.min(o.rounds, o.referenceRounds),
      decisionUsP50: percentile(ref.steps, 50) * 1000,
      decisionUsP99: percentile(ref.steps, 99) * 1000,
      admittedPerRound: ref.admitted / Math.min(o.rounds, o.referenceRounds),
    },
    ratio: rate(ours) / rate(ref),
    cpuRatio: cpuRate(ours) / cpuRate(ref),
    target: o.target,
    meetsTarget: rate(ours) >= o.target,
  };
  if (args.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const f = (v: number) => Math.round(v).toLocaleString('en-US');
    console.log(`scheduler: ${o.pending.toLocaleString('en-US')} pending, ${report.running.toLocaleString('en-US')} running on ${o.nodes} nodes`);
    console.log('                      decisions/s   per CPU-s   pass mean   decision p50   decision p99   admitted/pass');
    const row = (name: string, x: typeof report.reference) =>
      `${name.padEnd(21)} ${f(x.decisionsPerSecond).padStart(11)} ${f(x.decisionsPerCpuSecond).padStart(11)} ${x.passMsMean.toFixed(1).padStart(8)} ms ` +
      `${x.decisionUsP50.toFixed(1).padStart(11)} µs ${x.decisionUsP99.toFixed(1).padStart(11)} µs ${x.admittedPerRound.toFixed(0).padStart(14)}`;
    console.log(row('core (heap, best-fit)', report.ours));
    console.log(row('reference first-fit', report.reference));
    console.log(
      `ratio core/reference: ${report.ratio.toFixed(2)}× wall, ${report.cpuRatio.toFixed(2)}× CPU; pass setup ${report.ours.setupMsMean.toFixed(1)} ms; ` +
        `core preempted ${report.ours.preemptedPerRound.toFixed(0)}/pass; target ≥ ${f(o.target)} decisions/s: ${report.meetsTarget ? 'met' : 'NOT met'}`,
    );
  }
  return report.meetsTarget ? 0 : 1;
}
