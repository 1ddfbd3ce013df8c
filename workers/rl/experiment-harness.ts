import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { childEnv, parseSettings, settings } from '@/core/settings';
import { openDatabase } from '@/db/open-database';
import { runs } from '@/db/schema';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * One learning experiment in this process (the stories and agent-learning benchmarks): a
 * throwaway data directory with its own embedded Postgres, the RL job handlers built from
 * `env` (variables as in the environment; unset ones take their defaults) on one job loop of
 * two slots, an artifact store and a sandbox manager for the experiment's own evaluations.
 * `close` stops everything and removes the directory.
 */
export async function openRlExperiment(tag: string, env: Record<string, string>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `crucible-${tag}-`));
  chmodSync(dir, 0o755); // embedded Postgres (as root) and sandboxes (as nobody) must traverse it
  const rl = parseSettings(childEnv(env));
  const opened = await openDatabase({ appName: tag, startEmbedded: true, max: 10, dataDir: dir, useDatabaseUrl: false });
  const { db, sql } = opened.database;
  const { createRlHandlers } = await import('./handlers');
  const handlers = createRlHandlers(rl, { dataDir: dir });
  const { runJobLoop } = await import('@/workers/jobs/job-loop');
  const ac = new AbortController();
  let loop: Promise<void> | undefined;
  const store = openArtifactStore(rl, { dataDir: dir, db });
  const storeDir = storeDirFor(dir, settings().CRUCIBLE_ENV_STORE);
  const manager = new SandboxManager({ dataDir: dir, storeDir, runtime: runtimeOptions(settings()), actor: 'system:rl' });
  const stopLoop = async () => {
    ac.abort();
    await loop?.catch(() => {});
    loop = undefined;
  };
  return {
    dir,
    rl,
    db,
    store,
    storeDir,
    manager,
    /** starts the job loop (once the experiment's models and tasks are in place) */
    start() {
      loop = runJobLoop({ db, sql, workerId: tag, handlers, concurrency: 2, pollMs: 100, drainMs: 1000, signal: ac.signal, log: () => {} });
    },
    stopLoop,
    async close() {
      await stopLoop();
      for (const h of handlers) await h.close?.().catch(() => {});
      await manager.close().catch(() => {});
      await store.close().catch(() => {});
      await opened.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RlExperiment = Awaited<ReturnType<typeof openRlExperiment>>;

/**
 * Polls a run until it completes or `deadline` (epoch ms) passes, logging each new iteration
 * with its reward; a failed run throws its error.
 */
export async function followRun(x: Pick<RlExperiment, 'db'>, runId: string, deadline: number, log: (line: string) => void): Promise<void> {
  const t0 = performance.now();
  let last = -1;
  for (;;) {
    const [r] = await x.db.select().from(runs).where(eq(runs.id, runId));
    if (r!.status === 'failed') throw new Error(`the run failed: ${r!.error}`);
    if (r!.currentIteration !== last) {
      last = r!.currentIteration;
      log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s: iteration ${last}, reward ${r!.lastRewardMean?.toFixed(3) ?? '-'}`);
    }
    if (r!.status === 'completed' || Date.now() > deadline) return;
    await new Promise((res) => setTimeout(res, 500));
  }
}
