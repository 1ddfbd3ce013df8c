// The maintenance worker: `node --import tsx workers/maintenance/main.ts`. Hosts periodic
// housekeeping (today: marking workers whose heartbeat stopped as lost).
import { workerStaleMs } from '@/workers/runtime/settings';
import { runWorkerProcess } from '@/workers/runtime/worker-process';
import { lostWorkersCheck, runChecks, type MaintenanceCheck } from './checks';

const checks: MaintenanceCheck[] = [lostWorkersCheck(workerStaleMs())];

await runWorkerProcess('maintenance', (ctx) => runChecks(ctx.db, checks, ctx.signal, ctx.log));
