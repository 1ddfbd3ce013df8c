// A job-worker process: `node --import tsx workers/job-worker/main.ts [--handlers <module>]`.
// Runs the registered handlers' queues until SIGTERM/SIGINT. Started by the supervisor.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { settings } from '@/core/settings';
import { joinNode, nodeCapacity, nodeName } from '@/lib/scheduler/node';
import { detectCapacity } from '@/lib/scheduler/host-capacity';
import { dataDir } from '@/db/open-database';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { handlersFromModule, type JobHandler } from '@/workers/jobs/job-handler';
import { runJobLoop } from '@/workers/jobs/job-loop';

const usage = `usage: node --import tsx workers/job-worker/main.ts [options]
  --handlers <module>   module exporting \`handlers: JobHandler[]\` (env CRUCIBLE_JOB_HANDLERS;
                        default: workers/job-worker/registry.ts)
  --concurrency <n>     jobs at once in this process (env CRUCIBLE_JOB_CONCURRENCY, default 2)
  --poll-ms <ms>        polling fallback when no NOTIFY arrives (env CRUCIBLE_QUEUE_POLL_MS, default 2000)
  --drain-ms <ms>       on stop, how long in-flight jobs may finish (env CRUCIBLE_JOB_DRAIN_MS, default 5000)
  --node <name>         scheduler node this process belongs to (env CRUCIBLE_NODE, default the hostname);
                        its capacity is measured, or set by CRUCIBLE_NODE_CPUS, _MEMORY_MB, _GPUS,
                        _GPU_MEMORY_MB, _DISK_MB`;

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(raw)}\n${usage}`);
  return n;
}

async function loadHandlers(module: string | undefined): Promise<JobHandler[]> {
  if (!module) return (await import('./registry')).handlers;
  const file = path.resolve(module);
  return handlersFromModule(await import(pathToFileURL(file).href), file);
}

const { values } = parseArgs({
  options: {
    handlers: { type: 'string' },
    concurrency: { type: 'string' },
    'poll-ms': { type: 'string' },
    'drain-ms': { type: 'string' },
    node: { type: 'string' },
    help: { type: 'boolean' },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
// Flags win over the environment's settings (core/settings.ts validates those).
const s = settings();
const handlers = await loadHandlers(values.handlers ?? s.CRUCIBLE_JOB_HANDLERS);
const concurrency = positive('concurrency', values.concurrency, s.CRUCIBLE_JOB_CONCURRENCY);
const pollMs = positive('poll-ms', values['poll-ms'], s.CRUCIBLE_QUEUE_POLL_MS);
const drainMs = positive('drain-ms', values['drain-ms'], s.CRUCIBLE_JOB_DRAIN_MS);
const node = values.node?.trim() || nodeName(s);
const capacity = nodeCapacity(s, () => detectCapacity(dataDir()));

await runWorkerProcess(WORKER_KINDS.jobs, async (ctx) => {
  try {
    await joinNode(ctx.db, ctx.workerId, node, capacity);
    ctx.log(`node ${node}: ${capacity.cpus} CPUs, ${capacity.memoryMb} MB, ${capacity.gpuCount} GPUs, ${capacity.diskMb} MB disk`);
    await runJobLoop({
      db: ctx.db,
      sql: ctx.database.sql,
      workerId: ctx.workerId,
      handlers,
      concurrency,
      pollMs,
      drainMs,
      signal: ctx.signal,
      log: ctx.log,
      logger: ctx.logger,
      node,
    });
  } finally {
    for (const h of handlers) await h.close?.().catch((e: Error) => ctx.log(`closing ${h.queue}: ${e.message}`));
  }
});
