import type { WorkerKind } from '@/core/queues';
import type { Database, Db } from '@/db/client';
import { settings } from '@/core/settings';
import { openDatabase } from '@/db/open-database';
import { createProcessLogger, type Logger } from '@/server/logs/logger';
import { markWorkerStopped, registerWorker } from './registration';
import { workerHeartbeat } from './heartbeat';
import { LogRing } from './log-ring';
import { processStatsSampler } from './process-stats';
import { processMeter } from '@/lib/compute/meter';

export type WorkerContext = {
  database: Database;
  db: Db;
  workerId: string;
  kind: WorkerKind;
  /** Aborted on SIGTERM/SIGINT or when the supervisor that started us is gone. */
  signal: AbortSignal;
  /** One info line (also kept in the worker's ring for the console): `logger.info(message)`. */
  log: (message: string) => void;
  /** The process's structured logger (server/logs/logger.ts): bind run/episode/job ids with `child`. */
  logger: Logger;
};

/** Set by the supervisor for its children: exit if that process is gone (no orphans). Read as settings().CRUCIBLE_PARENT_PID. */
export const PARENT_PID_ENV = 'CRUCIBLE_PARENT_PID';

/**
 * The life of one worker OS process: connect, register in `workers` with this node's
 * capacity, heartbeat, run `main` until a stop signal, then mark the registration
 * stopped and exit 0 (1 if `main` failed, so the supervisor restarts it).
 */
export async function runWorkerProcess(kind: WorkerKind, main: (ctx: WorkerContext) => Promise<void>): Promise<never> {
  // Every worker's entry point comes through here: the one place its process settings are read.
  const s = settings();
  // The worker's own log: JSON lines on stdout for the supervisor (and any log collector), the
  // records at CRUCIBLE_LOG_SHIP_LEVEL and above shipped to log_records, and the process's own info
  // lines (start-up, job lifecycle, its warnings) in a bounded ring the heartbeat stores for the
  // console's worker page. An episode's detail lines (`stage`: sampling, tool calls, grading…) stay
  // out of the ring: a busy worker would push everything else out; they are in /logs and the
  // episode's timeline.
  const ring = new LogRing();
  const ringStream = {
    write(line: string) {
      try {
        const r = JSON.parse(line) as { msg?: unknown; time?: string; level?: string; stage?: unknown };
        const detail = r.stage !== undefined && r.level !== 'warn' && r.level !== 'error' && r.level !== 'fatal';
        if (detail) return;
        const text = typeof r.msg === 'string' ? r.msg : '';
        ring.push(r.level === 'warn' || r.level === 'error' || r.level === 'fatal' ? `${r.level}: ${text}` : text, r.time ? new Date(r.time) : new Date());
      } catch {
        /* not a JSON line: nothing to keep */
      }
    },
  };
  const processLogger = createProcessLogger({ process: kind, settings: s, streams: [{ level: 'info', stream: ringStream }] });
  const logger = processLogger.logger;
  const log = (message: string) => logger.info(message);
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

  const { CRUCIBLE_PARENT_PID: parentPid, CRUCIBLE_WORKER_HEARTBEAT_MS: heartbeatMs } = s;
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
  // every line from here on (and every child logger made from here on) names the worker
  logger.setBindings({ workerId });
  processLogger.attach(database.db);
  log(`registered as ${workerId}`);
  // the CPU its jobs used per phase (settled now, so a long job's share shows before it ends): the learner's share of the node
  const phases = () => {
    processMeter.settle();
    return { ...processMeter.totals };
  };
  const heartbeat = workerHeartbeat({ db: database.db, workerId, ring, sample: processStatsSampler(), phases });
  const beat = setInterval(() => {
    heartbeat().catch((e) => logger.warn(`heartbeat failed: ${(e as Error).message}`));
  }, heartbeatMs);

  let code = 0;
  try {
    await main({ database, db: database.db, workerId, kind, signal: stop.signal, log, logger });
    if (!stop.signal.aborted) logger.warn('main returned without being asked to stop');
  } catch (e) {
    code = 1;
    logger.error(`failed: ${(e as Error).stack ?? e}`);
  }
  clearInterval(beat);
  if (orphanWatch) clearInterval(orphanWatch);
  await markWorkerStopped(database.db, workerId, code === 0 ? 'stopped' : 'failed', ring.snapshot()).catch((e) =>
    log(`could not mark stopped: ${(e as Error).message}`),
  );
  log(code === 0 ? 'stopped' : 'exited after failure');
  // the last records (this one included) reach the database before it closes
  await processLogger.close().catch(() => {});
  await opened.close().catch(() => {});
  process.exit(code);
}
