// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping: marking workers whose heartbeat stopped as lost, forgetting old registrations,
// anchoring the audit chain's head in <data>/audit-anchors.log, summarising failed-login windows.
import { settings } from '@/core/settings';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { anchorFile } from '@/server/audit/anchors';
import { maintenanceChecks, runChecks } from './checks';

const checks = maintenanceChecks({ workerStaleMs: settings().CRUCIBLE_WORKER_STALE_MS, anchorFile: anchorFile() });

await runWorkerProcess(WORKER_KINDS.maintenance, (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
