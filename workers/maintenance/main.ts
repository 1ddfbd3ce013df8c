// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping: marking workers whose heartbeat stopped as lost, forgetting old registrations.
import { workerStaleMs } from '@/workers/runtime/settings';
import { runWorkerProcess } from '@/workers/runtime/worker-process';
import { lostWorkersCheck, pruneWorkersCheck, runChecks, type MaintenanceCheck } from './checks';

const checks: MaintenanceCheck[] = [lostWorkersCheck(workerStaleMs()), pruneWorkersCheck(7 * 86_400_000)];

await runWorkerProcess('maintenance', (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
