import os from 'node:os';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Db } from '@/db/client';
import { LOG_LEVEL_NUMBERS, type LogContext, type LogLevel } from '@/core/log-records';
import type { Settings } from '@/core/settings';
import { LogShipper } from './shipper';

export type { Logger } from 'pino';

/**
 * Every Crucible process's logger (pino): JSON lines on stdout, which is what a supervisor
 * relays and what Loki's promtail or Vector ingest, and the same records at
 * CRUCIBLE_LOG_SHIP_LEVEL and above shipped in batches to `log_records` (./shipper.ts) once the
 * process has a database. Each line carries the process's base fields (host: CRUCIBLE_NODE or
 * the hostname; process: the worker kind, `web` or `cli`; pid; workerId once registered) and
 * whatever its child loggers bind: run, episode, job (core/log-records.ts LogContext).
 */

export type ProcessLogger = {
  logger: Logger;
  /** null when shipping is off */
  shipper: LogShipper | null;
  /** ship to this database from now on (records logged before are held, within the bound) */
  attach(db: Db): void;
  /** flush what is buffered and stop shipping */
  close(): Promise<void>;
};

export type ProcessLoggerOptions = {
  process: string;
  host?: string;
  settings: Pick<Settings, 'CRUCIBLE_LOG_LEVEL' | 'CRUCIBLE_LOG_SHIP_LEVEL' | 'CRUCIBLE_LOG_FLUSH_MS' | 'CRUCIBLE_LOG_BUFFER' | 'CRUCIBLE_NODE'>;
  /** stdout by default (synchronous, so nothing is lost at exit) */
  stdout?: DestinationStream;
  /** more destinations, each from its own level (a worker's LogRing) */
  streams?: { level: LogLevel; stream: DestinationStream }[];
};

/** This host's name in logs, as the scheduler names the node: CRUCIBLE_NODE, else the hostname. */
export const logHost = (s: Pick<Settings, 'CRUCIBLE_NODE'>) => s.CRUCIBLE_NODE?.trim() || os.hostname();

export function createProcessLogger(o: ProcessLoggerOptions): ProcessLogger {
  const s = o.settings;
  const base = { host: o.host ?? logHost(s), process: o.process, pid: process.pid };
  const shipLevel = s.CRUCIBLE_LOG_SHIP_LEVEL;
  const shipper =
    shipLevel === 'off'
      ? null
      : new LogShipper({
          level: shipLevel,
          flushMs: s.CRUCIBLE_LOG_FLUSH_MS,
          maxBuffer: s.CRUCIBLE_LOG_BUFFER,
          base,
          warn: (m) => process.stderr.write(`${JSON.stringify({ level: 'warn', time: new Date().toISOString(), ...base, msg: m })}\n`),
        });
  const streams: { level: LogLevel; stream: DestinationStream }[] = [
    { level: s.CRUCIBLE_LOG_LEVEL, stream: o.stdout ?? pino.destination({ dest: 1, sync: true }) },
    ...(shipper && shipLevel !== 'off' ? [{ level: shipLevel, stream: shipper }] : []),
    ...(o.streams ?? []),
  ];
  const lowest = streams.reduce((m, x) => (LOG_LEVEL_NUMBERS[x.level] < LOG_LEVEL_NUMBERS[m] ? x.level : m), 'fatal' as LogLevel);
  const logger = pino(
    {
      level: lowest,
      base,
      timestamp: pino.stdTimeFunctions.isoTime,
      // levels by name: what log collectors (and people) read
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.multistream(streams),
  );
  return {
    logger,
    shipper,
    attach: (db) => shipper?.attach(db),
    close: async () => {
      await shipper?.stop();
    },
  };
}

/** A child logger bound to the ids it is about (only those given). */
export function withContext(logger: Logger, ctx: LogContext): Logger {
  const bound = Object.fromEntries(Object.entries(ctx).filter(([, v]) => v !== undefined && v !== null));
  return Object.keys(bound).length ? logger.child(bound) : logger;
}

/** A logger that writes nowhere (code run without a process logger, e.g. in tests). */
export const silentLogger: Logger = pino({ level: 'silent' });

const lineLoggers = new WeakMap<(message: string) => void, Logger>();
/** A logger whose records reach `log` as their message text (callers given only a line function). */
export function lineLogger(log: (message: string) => void): Logger {
  let l = lineLoggers.get(log);
  if (!l) {
    l = pino(
      { base: null, timestamp: false },
      {
        write(line: string) {
          try {
            log(String((JSON.parse(line) as { msg?: unknown }).msg ?? ''));
          } catch {
            /* not a JSON line */
          }
        },
      },
    );
    lineLoggers.set(log, l);
  }
  return l;
}
