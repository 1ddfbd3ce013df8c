// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping: marking workers whose heartbeat stopped as lost, forgetting old registrations,
// anchoring the audit chain's head in <data>/audit-anchors.log.
import { workerStaleMs } from '@/workers/runtime/settings';
import { runWorkerProcess } from '@/workers/runtime/worker-process';
import { anchorFile } from '@/server/audit/anchors';
import { auditAnchorCheck, lostWorkersCheck, pruneWorkersCheck, runChecks, type MaintenanceCheck } from './checks';

const checks: MaintenanceCheck[] = [lostWorkersCheck(workerStaleMs()), pruneWorkersCheck(7 * 86_400_000), auditAnchorCheck(anchorFile())];

await runWorkerProcess('maintenance', (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
