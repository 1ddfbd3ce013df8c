// The sandbox worker: `node --import tsx workers/sandbox/main.ts`. Serves `sandbox.exec`
// jobs from the queue with a warm sandbox pool, sweeps what a dead predecessor left on
// start, and re-hashes every environment on a schedule (CRUCIBLE_ENV_VERIFY_MS, 1 h).
import { parseArgs } from 'node:util';
import { envInt } from '@/workers/runtime/settings';
import { runWorkerProcess } from '@/workers/runtime/worker-process';
import { runJobLoop } from '@/workers/jobs/job-loop';
import { recordVerification } from './env-db';
import { defaultStoreDir, listEnvironments, verifyEnvironmentFull } from './env-store';
import { sandboxHandlers } from './handlers';

const { values } = parseArgs({ options: { concurrency: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log('usage: node --import tsx workers/sandbox/main.ts [--concurrency N]   (env CRUCIBLE_SANDBOX_CONCURRENCY, default 2)');
  process.exit(0);
}
const concurrency = Number(values.concurrency ?? envInt('CRUCIBLE_SANDBOX_CONCURRENCY', 2));
if (!Number.isInteger(concurrency) || concurrency <= 0) throw new Error(`--concurrency must be a positive integer, got ${values.concurrency}`);

await runWorkerProcess('sandbox', async (ctx) => {
  const { handlers, manager } = sandboxHandlers();
  const verifyAll = async () => {
    for (const env of listEnvironments(defaultStoreDir())) {
      const v = verifyEnvironmentFull(env);
      if (!v.ok) ctx.log(`environment ${env.name} ${env.hash} FAILED verification: ${v.problems.slice(0, 5).join('; ')}`);
      await recordVerification(ctx.db, env, v).catch((e: Error) => ctx.log(`recording verification failed: ${e.message}`));
    }
  };
  const timer = setInterval(() => void verifyAll(), envInt('CRUCIBLE_ENV_VERIFY_MS', 3_600_000));
  try {
    await runJobLoop({ db: ctx.db, sql: ctx.database.sql, workerId: ctx.workerId, handlers, concurrency, pollMs: 2_000, drainMs: 5_000, signal: ctx.signal, log: ctx.log });
  } finally {
    clearInterval(timer);
    await manager()?.close();
  }
});
