import type { PhaseSeconds } from '@/core/compute';
import type { Db } from '@/db/client';
import type { LogRing } from './log-ring';
import type { ProcessStats } from './process-stats';
import { heartbeatWorker } from './registration';

/**
 * One worker's heartbeat: alive, its own CPU and memory, and its newest log lines when they
 * changed since the last beat that stored them (most beats carry none, so a quiet worker
 * does not rewrite its lines every few seconds). Resolves to whether the row was updated.
 */
export function workerHeartbeat(o: {
  db: Db;
  workerId: string;
  ring: LogRing;
  sample: () => ProcessStats;
  /** the process's CPU-seconds per compute phase so far (lib/compute/meter.ts processMeter.totals) */
  phases?: () => PhaseSeconds;
}): () => Promise<boolean> {
  let storedVersion = -1;
  return async () => {
    const version = o.ring.version;
    const logs = version !== storedVersion ? o.ring.snapshot() : undefined;
    const updated = await heartbeatWorker(o.db, o.workerId, { ...o.sample(), logs, cpuPhaseSeconds: o.phases?.() });
    if (updated && logs) storedVersion = version;
    return updated;
  };
}
