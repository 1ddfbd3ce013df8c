// The scheduler worker: `node --import tsx workers/scheduler-worker/main.ts`. Admits scheduled jobs
// to nodes, preempts and re-queues them (docs/scheduler.md). Started by the supervisor; run
// more than one for availability: one leads (advisory lock), the others stand by.
import { settings } from '@/core/settings';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { runSchedulerLoop, schedulerConfigFrom } from '@/lib/scheduler/scheduler-loop';

if (process.argv.includes('--help')) {
  console.log(`usage: node --import tsx workers/scheduler-worker/main.ts
  env CRUCIBLE_SCHEDULER_CONFIG        scheduler config (inline JSON or a JSON file; default: three tiers over live capacity)
  env CRUCIBLE_SCHEDULER_TICK_MS       pass at least this often (default 250)
  env CRUCIBLE_SCHEDULER_EVICT_GRACE_MS take back a preempted job its worker did not stop in this time (default 30000)
  env CRUCIBLE_SCHEDULER_NODE_LEASE_MS a silent node's work is re-queued after this (default 30000)
  env CRUCIBLE_SCHEDULER_MIN_RUN_MS    never preempt work younger than this (default 60000)
  env CRUCIBLE_RESERVE_FRACTION        elastic reserve kept for the critical tier (default 0.3)`);
  process.exit(0);
}

const s = settings();
const config = schedulerConfigFrom(s);
const tickMs = s.CRUCIBLE_SCHEDULER_TICK_MS;
const evictGraceMs = s.CRUCIBLE_SCHEDULER_EVICT_GRACE_MS;

await runWorkerProcess(WORKER_KINDS.scheduler, (ctx) =>
  runSchedulerLoop({
    database: ctx.database,
    config,
    tickMs,
    minGapMs: 20,
    standbyMs: 1_000,
    evictGraceMs,
    samplesEveryMs: 5_000,
    signal: ctx.signal,
    log: ctx.log,
  }),
);
