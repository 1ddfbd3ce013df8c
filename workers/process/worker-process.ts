import type { WorkerKind } from '@/core/queues';
import type { Database, Db } from '@/db/client';
import { settings } from '@/core/settings';
import { openDatabase } from '@/db/open-database';
import { markWorkerStopped, registerWorker } from './registration';
import { workerHeartbeat } from './heartbeat';
import { LogRing } from './log-ring';
import { processStatsSampler } from './process-stats';

export type WorkerContext = {
  database: Database;
  db: Db;
  workerId: string;
  kind: WorkerKind;
  /** Aborted on SIGTERM/SIGINT or when the supervisor that started us is gone. */
  signal: AbortSignal;
  log: (message: string) => void;
};

/** Set by the supervisor for its children: exit if that process is gone (no orphans). Read as settings().CRUCIBLE_PARENT_PID. */
export const PARENT_PID_ENV = 'CRUCIBLE_PARENT_PID';

/**
 * The life of one worker OS process: connect, register in `workers` with this node's
 * capacity, heartbeat, run `main` until a stop signal, then mark the registration
 * stopped and exit 0 (1 if `main` failed, so the supervisor restarts it).
 */
export async function runWorkerProcess(kind: WorkerKind, main: (ctx: WorkerContext) => Promise<void>): Promise<never> {
  // The worker's own log: stdout for the supervisor, and a bounded ring the heartbeat stores for the console.
  const ring = new LogRing();
  const log = (message: string) => {
    const at = new Date();
    console.log(`${at.toISOString()} ${kind}[${process.pid}] ${message}`);
    ring.push(message, at);
  };
  const stop = new AbortController();
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) {
      log(`${sig} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`${sig}: stopping`);
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  // Every worker's entry point comes through here: the one place its process settings are read.
  const { CRUCIBLE_PARENT_PID: parentPid, CRUCIBLE_WORKER_HEARTBEAT_MS: heartbeatMs } = settings();
  const orphanWatch = parentPid
    ? setInterval(() => {
        if (process.ppid !== parentPid && !stopping) {
          log(`supervisor ${parentPid} is gone: stopping`);
          stopping = true;
          stop.abort();
        }
      }, 1_000)
    : undefined;

  const opened = await openDatabase({ appName: `crucible-${kind}`, startEmbedded: false, max: 6 });
  const { database } = opened;
  const workerId = await registerWorker(database.db, kind);
  log(`registered as ${workerId}`);
  const heartbeat = workerHeartbeat({ db: database.db, workerId, ring, sample: processStatsSampler() });
  const beat = setInterval(() => {
    heartbeat().catch((e) => log(`heartbeat failed: ${(e as Error).message}`));
  }, heartbeatMs);

  let code = 0;
  try {
    await main({ database, db: database.db, workerId, kind, signal: stop.signal, log });
    if (!stop.signal.aborted) log('main returned without being asked to stop');
  } catch (e) {
    code = 1;
    log(`failed: ${(e as Error).stack ?? e}`);
  }
  clearInterval(beat);
  if (orphanWatch) clearInterval(orphanWatch);
  await markWorkerStopped(database.db, workerId, code === 0 ? 'stopped' : 'failed', ring.snapshot()).catch((e) =>
    log(`could not mark stopped: ${(e as Error).message}`),
  );
  await opened.close().catch(() => {});
  log(code === 0 ? 'stopped' : 'exited after failure');
  process.exit(code);
}
