import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runSimulation, SIM_TIERS, simOptionsSchema, type SimReport, type SimTier } from './simulation';
import { lineChart } from './svg-chart';

// `npm run sim [-- --json] [--seed N] [--nodes 1000] [--tasks 16000] [--duration 1200] [--svg DIR]`

const USAGE = `usage: npm run sim -- [--json] [--svg DIR] [--seed N] [--nodes N] [--gpu-fraction F] [--tasks N]
       [--duration S] [--warmup S] [--tick-ms MS] [--reserve F] [--mtbf S] [--burst-every S] [--burst-max F]
Simulates the scheduling core on a virtual cluster and reports utilisation, waits per tier,
preemptions, fairness and starvation. --tasks is the outstanding closed-loop tasks (backlog).`;

const NUMERIC: Record<string, keyof typeof simOptionsSchema.shape> = {
  seed: 'seed',
  nodes: 'nodes',
  'gpu-fraction': 'gpuNodeFraction',
  tasks: 'tasks',
  duration: 'durationS',
  warmup: 'warmupS',
  'tick-ms': 'tickMs',
  reserve: 'reserveFraction',
  mtbf: 'nodeMtbfS',
  'burst-every': 'burstEveryS',
  'burst-max': 'burstMax',
  'min-run': 'minRunTimeS',
  buckets: 'buckets',
};

export function parseSimArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean' },
      svg: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(Object.keys(NUMERIC).map((k) => [k, { type: 'string' as const }])),
    },
    strict: true,
  });
  const raw: Record<string, number> = {};
  for (const [flag, key] of Object.entries(NUMERIC)) {
    const v = (values as Record<string, unknown>)[flag];
    if (typeof v !== 'string') continue;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`--${flag} must be a number, got "${v}"`);
    raw[key] = n;
  }
  const parsed = simOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `--${Object.entries(NUMERIC).find(([, k]) => k === i.path[0])?.[0]}: ${i.message}`).join('; '));
  }
  return { options: parsed.data, json: !!values.json, svg: values.svg as string | undefined, help: !!values.help };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const sec = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} s` : '—');

export function formatReport(r: SimReport): string {
  const lines = [
    `cluster: ${r.cluster.nodes} nodes (${r.cluster.gpuNodes} GPU), ${r.cluster.capacity.cpu} CPUs, ${r.cluster.capacity.gpu} GPUs; ` +
      `${r.options.durationS} s virtual (${r.options.warmupS} s warm-up), seed ${r.options.seed}`,
    `running: mean ${Math.round(r.concurrency.meanRunning)}, peak ${r.concurrency.peakRunning}; waiting: mean ${Math.round(r.concurrency.meanPending)}`,
    `utilisation of non-reserved capacity while backlogged: CPU ${pct(r.utilisation.cpu)}, GPU ${pct(r.utilisation.gpu)} (memory ${pct(r.utilisation.memory)})`,
    '',
    'tier          admitted   p50 wait   p95 wait   p99 wait   max wait   max gap / bound   fairness',
  ];
  for (const [name, t] of Object.entries(r.tiers)) {
    lines.push(
      `${name.padEnd(13)} ${String(t.admitted).padStart(8)} ${sec(t.waitS.p50).padStart(10)} ${sec(t.waitS.p95).padStart(10)} ` +
        `${sec(t.waitS.p99).padStart(10)} ${sec(t.waitS.max).padStart(10)} ${`${t.maxServiceGapS.toFixed(2)} / ${t.starvationBoundS} s`.padStart(17)}` +
        `${t.starved ? ' STARVED' : ''}   ${t.fairness === null ? '—' : t.fairness.toFixed(4)}`,
    );
  }
  lines.push(
    '',
    `preemptions: ${r.preemptions.total} (priority ${r.preemptions.priority}, reclaim ${r.preemptions.reclaim}), ${r.preemptions.wastedCpuHours.toFixed(1)} CPU·h of work lost`,
    `node failures: ${r.nodeFailures}, workloads requeued after lease: ${r.requeuedByNodeLoss}; completed: ${r.completed}`,
    `scheduler: ${r.scheduler.calls} passes, ${r.scheduler.decisions} decisions, mean ${r.scheduler.meanMs.toFixed(1)} ms, ` +
      `p99 ${r.scheduler.p99Ms.toFixed(1)} ms, max ${r.scheduler.maxMs.toFixed(1)} ms per pass; wall ${r.wallS.toFixed(1)} s`,
  );
  return lines.join('\n');
}

const COLORS: Record<SimTier, string> = { critical: '#d62728', standard: '#1f77b4', 'best-effort': '#2ca02c' };

export function writeCharts(r: SimReport, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const s = r.series;
  const tiers = SIM_TIERS;
  const charts: Record<string, string> = {
    'sim-utilisation.svg': lineChart({
      title: 'Utilisation of non-reserved capacity (while backlogged)',
      x: s.t,
      xLabel: 'virtual time (s)',
      yLabel: 'utilisation',
      yMax: 1,
      yFormat: (v) => `${Math.round(v * 100)}%`,
      lines: [
        { name: 'CPU pool', values: s.utilCpu, color: '#1f77b4' },
        { name: 'GPU pool', values: s.utilGpu, color: '#ff7f0e' },
      ],
    }),
    'sim-running.svg': lineChart({
      title: 'Running workloads per tier',
      x: s.t,
      xLabel: 'virtual time (s)',
      yLabel: 'workloads',
      lines: tiers.map((t) => ({ name: t, values: s.running[t], color: COLORS[t] })),
    }),
    'sim-waiting.svg': lineChart({
      title: 'Waiting workloads per tier',
      x: s.t,
      xLabel: 'virtual time (s)',
      yLabel: 'workloads',
      lines: tiers.map((t) => ({ name: t, values: s.pending[t], color: COLORS[t] })),
    }),
    'sim-critical-wait.svg': lineChart({
      title: 'Critical wait, p99 per time bucket (buckets with critical admissions)',
      x: s.t,
      xLabel: 'virtual time (s)',
      yLabel: 'seconds',
      yMax: 1,
      lines: [{ name: 'critical p99', values: s.criticalWaitP99, color: COLORS.critical }],
    }),
    'sim-preemptions.svg': lineChart({
      title: 'Preemptions per time bucket',
      x: s.t,
      xLabel: 'virtual time (s)',
      yLabel: 'preemptions',
      lines: [{ name: 'preemptions', values: s.preemptions, color: '#7f7f7f' }],
    }),
  };
  const written: string[] = [];
  for (const [name, svg] of Object.entries(charts)) {
    const file = path.join(dir, name);
    writeFileSync(file, svg);
    written.push(file);
  }
  return written;
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseSimArgs(argv);
  } catch (e) {
    console.error(`sim: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const report = runSimulation(args.options);
  const files = args.svg ? writeCharts(report, args.svg) : [];
  if (args.json) {
    process.stdout.write(JSON.stringify(report) + '\n');
  } else {
    console.log(formatReport(report));
    for (const f of files) console.log(`chart: ${f}`);
  }
  return Object.values(report.tiers).some((t) => t.starved) ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('lib/scheduler/simulation-cli.ts')) {
  process.exitCode = await main(process.argv.slice(2));
}
