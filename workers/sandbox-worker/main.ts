// The sandbox worker: `node --import tsx workers/sandbox-worker/main.ts`. Serves `sandbox.exec`
// jobs from the queue with a warm sandbox pool, sweeps what a dead predecessor left on
// start, and re-hashes every environment on a schedule (CRUCIBLE_ENV_VERIFY_MS, 1 h).
// A process entry point, not part of the library: it wires the library to the platform
// (server/environments: audit, environment rows, quarantine).
import { parseArgs } from 'node:util';
import { settings } from '@/core/settings';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { recordVerification } from '@/server/environments/registry';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { runJobLoop } from '@/workers/jobs/job-loop';
import { listEnvironments } from '@/lib/sandbox/env/env-store';
import { verifyEnvironmentFull } from '@/lib/sandbox/env/env-verify';
import { sandboxHandlers } from './handlers';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { dataDir, envStoreDir } from '@/db/open-database';

const { values } = parseArgs({ options: { concurrency: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log('usage: node --import tsx workers/sandbox-worker/main.ts [--concurrency N]   (env CRUCIBLE_SANDBOX_CONCURRENCY, default 2)');
  process.exit(0);
}
const s = settings();
const concurrency = Number(values.concurrency ?? s.CRUCIBLE_SANDBOX_CONCURRENCY);
if (!Number.isInteger(concurrency) || concurrency <= 0) throw new Error(`--concurrency must be a positive integer, got ${values.concurrency}`);

await runWorkerProcess(WORKER_KINDS.sandbox, async (ctx) => {
  // environments another host published are fetched by hash (the artifact store) rather than rebuilt here
  const images = openArtifactStore(s, { dataDir: dataDir(), db: ctx.db });
  const { handlers, manager } = sandboxHandlers({ recordsFor: (db) => sandboxRecords(db, { images }) });
  const verifyAll = async () => {
    for (const env of listEnvironments(envStoreDir())) {
      const v = verifyEnvironmentFull(env);
      if (!v.ok) ctx.log(`environment ${env.name} ${env.hash} FAILED verification: ${v.problems.slice(0, 5).join('; ')}`);
      await recordVerification(ctx.db, env, v).catch((e: Error) => ctx.log(`recording verification failed: ${e.message}`));
    }
  };
  // One pass at a time: a pass hashes every environment synchronously, and passes started by a
  // short period (tests use 1 s) on a loaded host piled up until the heartbeat stopped and the
  // worker was marked lost with its job.
  let verifying = false;
  const timer = setInterval(() => {
    if (verifying) return;
    verifying = true;
    void verifyAll().finally(() => (verifying = false));
  }, s.CRUCIBLE_ENV_VERIFY_MS);
  try {
    await runJobLoop({
      db: ctx.db,
      sql: ctx.database.sql,
      workerId: ctx.workerId,
      handlers,
      concurrency,
      pollMs: 2_000,
      drainMs: 5_000,
      signal: ctx.signal,
      log: ctx.log,
      logger: ctx.logger,
    });
  } finally {
    clearInterval(timer);
    await manager()?.close();
  }
});
