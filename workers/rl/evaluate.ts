import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { tasks } from '@/db/schema';
import type { RunConfig } from '@/server/runs/run-config';
import type { TaskTests } from '@/server/tasks/formats';
import type { Policy } from '@/workers/policy/policy';
import type { SandboxManager } from '@/workers/sandbox/manager';
import { runEpisode } from './episode';
import { EPISODE_LIMITS, rlSettings } from './settings';

/** Held-out pass@1: one greedy single-turn attempt per held-out task, share fully passing. */
export async function heldoutPassAt1(db: Db, manager: SandboxManager, policy: Policy, run: { id: string; suiteId: string | null; config: RunConfig }) {
  const s = rlSettings();
  let list = await db.select().from(tasks).where(and(eq(tasks.suiteId, run.suiteId!), eq(tasks.split, 'heldout'))).orderBy(asc(tasks.externalId));
  if (s.heldoutLimit > 0) list = list.slice(0, s.heldoutLimit);
  let passed = 0;
  let scored = 0;
  for (const t of list) {
    const out = await runEpisode({
      policy, manager, sandbox: { runtime: run.config.isolation[t.risk], env: t.environmentName ?? 'default', limits: EPISODE_LIMITS },
      task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests: t.tests as TaskTests },
      maxTurns: 1, seed: 0, temperature: 0, topP: 1, maxNewTokens: s.maxNewTokens, feedbackBudget: 0,
      weights: run.config.rewardWeights, testTimeoutMs: s.testTimeoutMs, context: { runId: run.id, episodeId: '' },
    });
    if (out.score.status !== 'scored') continue;
    scored++;
    if (out.score.components.passRate === 1) passed++;
  }
  return { passAt1: scored ? passed / scored : 0, tasks: scored };
}
