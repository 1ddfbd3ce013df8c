// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping: marking workers whose heartbeat stopped as lost, forgetting old registrations,
// anchoring the audit chain's head in <data>/audit-anchors.log, summarising failed-login windows.
import { workerStaleMs } from '@/workers/runtime/settings';
import { runWorkerProcess } from '@/workers/runtime/worker-process';
import { anchorFile } from '@/server/audit/anchors';
import { maintenanceChecks, runChecks } from './checks';

const checks = maintenanceChecks({ workerStaleMs: workerStaleMs(), anchorFile: anchorFile() });

await runWorkerProcess('maintenance', (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
