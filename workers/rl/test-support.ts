import { chmodSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';
import { TEST_STORE } from '@/workers/sandbox/test-support';

/** Env knobs that keep a test run small: a short warm start, two held-out tasks, no pass@k. */
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

export async function untilRun(db: Db, runId: string, what: string, pred: (r: RunRow) => boolean | Promise<boolean>, ms: number, detail: () => string = () => ''): Promise<RunRow> {
  const end = Date.now() + ms;
  for (;;) {
    const [r] = await db.select().from(runs).where(eq(runs.id, runId));
    if (r && (await pred(r))) return r;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; run ${JSON.stringify({ status: r?.status, iteration: r?.currentIteration, done: r?.episodesDone, error: r?.error })} ${detail()}`);
    await new Promise((res) => setTimeout(res, 150));
  }
}
