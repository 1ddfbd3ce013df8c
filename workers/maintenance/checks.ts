import type { Db } from '@/db/client';
import { anchorHead } from '@/server/audit/anchors';
import { sweep } from '@/server/auth/throttle';
import { pruneEndedEnvSessions } from '@/server/env-sessions/service';
import { pruneLogs } from '@/server/logs/service';
import { markLostWorkers, pruneEndedWorkers } from '@/workers/process/registration';

/** A periodic housekeeping task the maintenance worker runs. Returns a line to log, if any. */
export type MaintenanceCheck = { name: string; everyMs: number; run: (db: Db) => Promise<string | void> };

/** Workers that stopped heartbeating (kill -9, crash, lost node) are marked `lost`. */
export function lostWorkersCheck(staleMs: number): MaintenanceCheck {
  return {
    name: 'lost-workers',
    everyMs: Math.max(500, Math.floor(staleMs / 3)),
    async run(db) {
      const lost = await markLostWorkers(db, staleMs);
      if (lost.length > 0) return `marked lost: ${lost.map((w) => `${w.id} (pid ${w.pid})`).join(', ')}`;
    },
  };
}

/** Every restart registers anew; drop rows of workers that ended long ago. */
export function pruneWorkersCheck(retentionMs: number, everyMs = 3_600_000): MaintenanceCheck {
  return {
    name: 'prune-workers',
    everyMs,
    async run(db) {
      const n = await pruneEndedWorkers(db, retentionMs);
      if (n > 0) return `forgot ${n} worker registration(s) that ended over ${Math.round(retentionMs / 86_400_000)} day(s) ago`;
    },
  };
}

/**
 * Anchor the audit chain's head in `file` (outside the database), so that rewriting,
 * cutting short or truncating the chain later shows in `crucible audit verify`.
 */
export function auditAnchorCheck(file: string, everyMs = 60_000): MaintenanceCheck {
  return {
    name: 'audit-anchor',
    everyMs,
    async run(db) {
      const { problem } = await anchorHead(db, file);
      if (problem) return `AUDIT LOG TAMPERED: ${problem}; not anchoring until investigated (run \`crucible audit verify\`)`;
    },
  };
}

/**
 * Write the summary audit row of each closed failed-login window (and drop expired login
 * counters), so a burst of failed sign-ins is summed up within a minute or so of its window
 * closing, not only when someone next tries to sign in (server/auth/throttle.ts).
 */
export function loginThrottleSweepCheck(everyMs = 60_000): MaintenanceCheck {
  return {
    name: 'login-throttle-sweep',
    everyMs,
    async run(db) {
      await sweep(db);
    },
  };
}

/**
 * Log records' retention and size cap (CRUCIBLE_LOG_RETENTION_DAYS, CRUCIBLE_LOG_MAX_ROWS):
 * older records go, then all but the newest `maxRows`.
 */
export function logRetentionCheck(o: { retentionMs: number; maxRows: number }, everyMs = 60_000): MaintenanceCheck {
  return {
    name: 'log-retention',
    everyMs,
    async run(db) {
      const { aged, capped } = await pruneLogs(db, o);
      const parts = [
        aged > 0 && `${aged} older than ${Math.round((o.retentionMs / 86_400_000) * 100) / 100} day(s)`,
        capped > 0 && `${capped} over the cap of ${o.maxRows}`,
      ].filter(Boolean);
      if (parts.length) return `deleted log records: ${parts.join(', ')}`;
    },
  };
}

/** Ended step-API sessions and their stored requests are kept a week (the audit log keeps their reset and close). */
export function pruneEnvSessionsCheck(retentionMs = 7 * 86_400_000, everyMs = 3_600_000): MaintenanceCheck {
  return {
    name: 'prune-env-sessions',
    everyMs,
    async run(db) {
      const n = await pruneEndedEnvSessions(db, retentionMs);
      if (n > 0) return `forgot ${n} step-API session(s) that ended over ${Math.round(retentionMs / 86_400_000)} day(s) ago, with their requests`;
    },
  };
}

/** The checks the maintenance worker runs (workers/maintenance/main.ts). */
export function maintenanceChecks(o: { workerStaleMs: number; anchorFile: string; logs?: { retentionMs: number; maxRows: number } }): MaintenanceCheck[] {
  return [
    lostWorkersCheck(o.workerStaleMs),
    pruneWorkersCheck(7 * 86_400_000),
    auditAnchorCheck(o.anchorFile),
    loginThrottleSweepCheck(),
    pruneEnvSessionsCheck(),
    ...(o.logs ? [logRetentionCheck(o.logs)] : []),
  ];
}

/**
 * Run each check on its own interval until `signal` aborts. A failing check is logged and
 * tried again next interval; checks never overlap themselves.
 */
export async function runChecks(db: Db, checks: MaintenanceCheck[], signal: AbortSignal, log: (m: string) => void): Promise<void> {
  const timers = checks.map((check) => {
    let busy = false;
    const tick = async () => {
      if (busy || signal.aborted) return;
      busy = true;
      try {
        const line = await check.run(db);
        if (line) log(`${check.name}: ${line}`);
      } catch (e) {
        log(`${check.name} failed: ${(e as Error).message}`);
      } finally {
        busy = false;
      }
    };
    void tick();
    return setInterval(tick, check.everyMs);
  });
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  timers.forEach(clearInterval);
}
