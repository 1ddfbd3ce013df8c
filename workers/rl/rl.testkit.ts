import { chmodSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runEvents, runs } from '@/db/schema';
import { asPhaseEvent, PHASE_EVENT_TYPE } from '@/core/run-phases';
import { TEST_STORE } from '@/lib/sandbox/sandbox.testkit';

/** Settings that keep a test run small: a short warm start, two held-out tasks, no pass@k. */
export const TINY_RL_ENV = {
  CRUCIBLE_RL_SFT_STEPS: '20',
  CRUCIBLE_RL_HELDOUT_LIMIT: '2',
  CRUCIBLE_RL_PASS_K: '0',
  CRUCIBLE_RL_MAX_NEW_TOKENS: '24',
} as const;

/** A data directory sandboxes (running as nobody) can traverse, and the shared env store. */
export function rlTestDirs(tag: string) {
  const dataDir = mkdtempSync(path.join('/tmp', `crucible-rl-${tag}-`));
  chmodSync(dataDir, 0o755);
  return { CRUCIBLE_DATA_DIR: dataDir, CRUCIBLE_ENV_STORE: TEST_STORE };
}

export type RunRow = typeof runs.$inferSelect;

/** A run's phase events (core/run-phases.ts) in the order written, with each event's message and actor. */
export async function phaseRows(db: Db, runId: string) {
  const rows = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.type, PHASE_EVENT_TYPE)))
    .orderBy(asc(runEvents.id));
  return rows.map((e) => ({ ...asPhaseEvent(e)!, message: e.message, actor: e.actor }));
}

export async function untilRun(
  db: Db,
  runId: string,
  what: string,
  pred: (r: RunRow) => boolean | Promise<boolean>,
  ms: number,
  detail: () => string = () => '',
): Promise<RunRow> {
  const end = Date.now() + ms;
  for (;;) {
    const [r] = await db.select().from(runs).where(eq(runs.id, runId));
    if (r && (await pred(r))) return r;
    if (Date.now() > end)
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}; run ${JSON.stringify({ status: r?.status, iteration: r?.currentIteration, done: r?.episodesDone, error: r?.error })} ${detail()}`,
      );
    await new Promise((res) => setTimeout(res, 150));
  }
}

/**
 * The RL job handlers running in this test process against a fresh database, as one job
 * worker would, built from `settings` (variables as in the environment, e.g. TINY_RL_ENV;
 * unset ones take their defaults) and a fresh data directory. process.env is not touched.
 */
export async function inProcessRl(tag: string, settings: Record<string, string>, o: { log?: (m: string) => void } = {}) {
  const [{ createRlHandlers }, { parseSettings }, { freshDatabase }, { runJobLoop }, { ensureTestEnvironment }, { openArtifactStore }] = await Promise.all([
    import('./handlers'),
    import('@/core/settings'),
    import('@/test/database'),
    import('@/workers/jobs/job-loop'),
    import('@/lib/sandbox/sandbox.testkit'),
    import('@/lib/artifacts/open-artifact-store'),
  ]);
  const dirs = rlTestDirs(tag);
  const rlHandlers = createRlHandlers(parseSettings(settings), { dataDir: dirs.CRUCIBLE_DATA_DIR, envStore: dirs.CRUCIBLE_ENV_STORE });
  const database = await freshDatabase();
  const ac = new AbortController();
  let loop: Promise<void> | undefined;
  return {
    database,
    db: database.db,
    dataDir: dirs.CRUCIBLE_DATA_DIR,
    handlers: rlHandlers,
    /** the artifact store the handlers publish checkpoints to (the same settings and data directory) */
    artifacts: openArtifactStore(parseSettings(settings), { dataDir: dirs.CRUCIBLE_DATA_DIR, db: database.db }),
    start() {
      ensureTestEnvironment();
      loop = runJobLoop({
        db: database.db,
        sql: database.sql,
        workerId: `rl-${tag}`,
        handlers: rlHandlers,
        concurrency: 2,
        pollMs: 200,
        drainMs: 1000,
        signal: ac.signal,
        log: o.log ?? (() => {}),
      });
    },
    /** Drop this process's cached policies and sandbox pool (as a restarted worker would have none). */
    async closeHandlers() {
      for (const h of rlHandlers) await h.close?.();
    },
    async stop() {
      ac.abort();
      await loop;
      for (const h of rlHandlers) await h.close?.();
    },
  };
}
