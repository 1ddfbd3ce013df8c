// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping: marking workers whose heartbeat stopped as lost, forgetting old registrations,
// anchoring the audit chain's head in <data>/audit-anchors.log, summarising failed-login windows,
// deleting log records past their retention or the size cap, evaluating alert rules and
// delivering their notifications (workers/alerts).
import { settings } from '@/core/settings';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { anchorFile } from '@/server/audit/anchors';
import { alertEvaluation, alertsCheck } from '@/workers/alerts/alerts-check';
import { maintenanceChecks, runChecks } from './checks';

const s = settings();
const checks = maintenanceChecks({
  workerStaleMs: s.CRUCIBLE_WORKER_STALE_MS,
  anchorFile: anchorFile(),
  logs: { retentionMs: s.CRUCIBLE_LOG_RETENTION_DAYS * 86_400_000, maxRows: s.CRUCIBLE_LOG_MAX_ROWS },
});
checks.push(alertsCheck(alertEvaluation(s), s.CRUCIBLE_ALERT_EVAL_MS));

await runWorkerProcess(WORKER_KINDS.maintenance, (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
