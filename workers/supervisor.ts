// Runs each worker as its own OS process, restarts crashed ones with backoff, and stops
// them all (SIGTERM, then SIGKILL after a grace period) on request. Used by scripts/start.ts;
// also a CLI: `npx tsx workers/supervisor.ts [--job-workers N]` against DATABASE_URL or a
// running instance's database.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { childEnv } from '@/core/settings';
import { PARENT_PID_ENV } from './process/worker-process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One supervised process. */
export type ProcessSpec = { name: string; command: string; args: string[]; env?: Record<string, string | undefined> };

/** A TypeScript entry run in-process by tsx (`node --import tsx`, no wrapper process). */
export function tsProcess(name: string, script: string, args: string[] = [], env?: Record<string, string>): ProcessSpec {
  return { name, command: process.execPath, args: ['--import', 'tsx', path.resolve(root, script), ...args], env };
}

/**
 * The workers `npm start` runs: every worker whose queue or schedule has producers.
 * Maintenance, metrics, the scheduler (admits scheduled jobs to nodes; docs/scheduler.md),
 * `jobWorkers` job workers (this machine's node), and the sandbox worker: it consumes
 * `sandbox.exec` jobs and re-hashes every environment on a schedule (CRUCIBLE_ENV_VERIFY_MS);
 * without it those jobs would wait forever and a tampered environment would go unnoticed.
 */
export function defaultWorkerSpecs(opts: { jobWorkers?: number; handlers?: string } = {}): ProcessSpec[] {
  const n = opts.jobWorkers ?? 1;
  const jobArgs = opts.handlers ? ['--handlers', opts.handlers] : [];
  return [
    tsProcess('maintenance', 'workers/maintenance/main.ts'),
    tsProcess('metrics', 'workers/metrics/main.ts'),
    tsProcess('scheduler', 'workers/scheduler-worker/main.ts'),
    tsProcess('sandbox', 'workers/sandbox-worker/main.ts'),
    ...Array.from({ length: n }, (_, i) => tsProcess(n === 1 ? 'jobs' : `jobs-${i + 1}`, 'workers/job-worker/main.ts', jobArgs)),
  ];
}

export type SupervisorEvent =
  | { type: 'spawn'; name: string; pid: number; restarts: number }
  | { type: 'exit'; name: string; pid: number; code: number | null; signal: NodeJS.Signals | null; expected: boolean }
  | { type: 'restart-scheduled'; name: string; delayMs: number };

export type SupervisorOptions = {
  specs: ProcessSpec[];
  /** Environment for every child (e.g. DATABASE_URL), on top of this process's (`childEnv`); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** After SIGTERM, how long a child may take before SIGKILL. */
  graceMs?: number;
  /** Restart delay: baseMs · 2^(consecutive crashes − 1), capped at maxMs; the count resets once a child stayed up resetAfterMs. */
  restart?: { baseMs?: number; maxMs?: number; resetAfterMs?: number };
  log?: (line: string) => void;
  onEvent?: (e: SupervisorEvent) => void;
};

type Slot = { spec: ProcessSpec; child?: ChildProcess; exited?: Promise<void>; startedAt: number; crashes: number; restarts: number; timer?: NodeJS.Timeout };

export type Supervisor = {
  /** Current children: name, pid (undefined while waiting to restart), restarts so far. */
  status: () => { name: string; pid: number | undefined; restarts: number }[];
  /** Stop every child (SIGTERM, SIGKILL after the grace period); resolves when all are gone. */
  stop: () => Promise<void>;
  /** SIGKILL every child now (a second Ctrl-C); `stop()` still resolves when they are gone. */
  kill: () => void;
};

/**
 * Signal a child's whole process group (it may have children of its own). Children are
 * spawned detached, so the group id is the child's pid; ESRCH means the group is gone.
 */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

export function startSupervisor(opts: SupervisorOptions): Supervisor {
  const graceMs = opts.graceMs ?? 10_000;
  const baseMs = opts.restart?.baseMs ?? 500;
  const maxMs = opts.restart?.maxMs ?? 30_000;
  const resetAfterMs = opts.restart?.resetAfterMs ?? 30_000;
  const log = opts.log ?? ((l: string) => console.log(l));
  const emit = (e: SupervisorEvent) => opts.onEvent?.(e);
  let stopping = false;

  const spawnSlot = (slot: Slot) => {
    const { spec } = slot;
    // Own process group: Ctrl-C reaches only us, and we can stop the child's whole tree.
    const child = spawn(spec.command, spec.args, {
      cwd: root,
      env: childEnv({ ...opts.env, ...spec.env, [PARENT_PID_ENV]: String(process.pid) }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    slot.child = child;
    slot.startedAt = Date.now();
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream! }).on('line', (line) => log(`[${spec.name}] ${line}`));
    }
    slot.exited = new Promise((resolve) => {
      child.once('error', (e) => log(`[${spec.name}] could not start: ${e.message}`));
      child.once('close', (code, signal) => {
        const pid = child.pid ?? -1;
        // Anything the child left in its group goes with it.
        if (pid > 0) killGroup(pid, 'SIGKILL');
        slot.child = undefined;
        emit({ type: 'exit', name: spec.name, pid, code, signal, expected: stopping });
        if (!stopping) {
          slot.crashes = Date.now() - slot.startedAt >= resetAfterMs ? 1 : slot.crashes + 1;
          const delayMs = Math.min(maxMs, baseMs * 2 ** (slot.crashes - 1));
          log(`supervisor: ${spec.name} (pid ${pid}) exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`);
          emit({ type: 'restart-scheduled', name: spec.name, delayMs });
          slot.timer = setTimeout(() => {
            slot.timer = undefined;
            if (stopping) return;
            slot.restarts++;
            spawnSlot(slot);
          }, delayMs);
        }
        resolve();
      });
    });
    if (child.pid) emit({ type: 'spawn', name: spec.name, pid: child.pid, restarts: slot.restarts });
  };

  const slots: Slot[] = opts.specs.map((spec) => ({ spec, startedAt: 0, crashes: 0, restarts: 0 }));
  slots.forEach(spawnSlot);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      await Promise.all(
        slots.map(async (slot) => {
          if (slot.timer) clearTimeout(slot.timer);
          const child = slot.child;
          if (!child?.pid) return;
          killGroup(child.pid, 'SIGTERM');
          const killer = setTimeout(() => {
            log(`supervisor: ${slot.spec.name} (pid ${child.pid}) still running after ${graceMs} ms: SIGKILL`);
            killGroup(child.pid!, 'SIGKILL');
          }, graceMs);
          await slot.exited;
          clearTimeout(killer);
        }),
      );
    })());

  const kill = () => {
    stopping = true;
    for (const slot of slots) {
      if (slot.timer) clearTimeout(slot.timer);
      if (slot.child?.pid) killGroup(slot.child.pid, 'SIGKILL');
    }
  };

  return {
    status: () => slots.map((s) => ({ name: s.spec.name, pid: s.child?.pid, restarts: s.restarts })),
    stop,
    kill,
  };
}

/** Stop `supervisor` on the first SIGINT/SIGTERM; a second one exits at once. */
export function stopOnSignals(onStop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    onStop(signal).then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function cli(): Promise<void> {
  const { values } = parseArgs({ options: { 'job-workers': { type: 'string' }, handlers: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(
      'usage: npx tsx workers/supervisor.ts [--job-workers N] [--handlers <module>]\n' +
        'Runs the workers against DATABASE_URL (or the database of the Crucible running with CRUCIBLE_DATA_DIR).',
    );
    return;
  }
  const jobWorkers = Number(values['job-workers'] ?? 1);
  if (!Number.isInteger(jobWorkers) || jobWorkers < 0) throw new Error(`--job-workers must be a whole number, got ${values['job-workers']}`);
  const { openDatabase } = await import('@/db/open-database');
  const opened = await openDatabase({ appName: 'crucible-supervisor', startEmbedded: false, max: 1 });
  const url = opened.database.url;
  await opened.close();
  const supervisor = startSupervisor({ specs: defaultWorkerSpecs({ jobWorkers, handlers: values.handlers }), env: { DATABASE_URL: url } });
  stopOnSignals(() => supervisor.stop());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((e) => {
    console.error(`supervisor: ${(e as Error).message}`);
    process.exit(1);
  });
}
