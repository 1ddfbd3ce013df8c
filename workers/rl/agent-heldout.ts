import type { Db } from '@/db/client';
import type { tasks } from '@/db/schema';
import type { RunConfig } from '@/core/run-config';
import type { RlSettings } from '@/core/settings';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { playRepoEpisode } from './agent-episode';
import type { HeldoutEval } from './evaluate';

/**
 * Held-out evaluation on repository tasks: agent episodes exactly as training plays them (the
 * run's tools, budgets, isolation) and graded the same way. pass@1: one greedy episode per task,
 * share with reward 1 (every FAIL_TO_PASS test passes, PASS_TO_PASS intact). pass@k (k > 0): k
 * episodes at the run's temperature, share of tasks where any scores 1. Tasks whose episode or
 * grading failed for infrastructure reasons are left out, never counted as failures.
 */
export async function agentHeldoutEval(
  db: Db,
  manager: SandboxManager,
  policy: RlPolicy,
  run: { id: string; config: RunConfig },
  s: Pick<RlSettings, 'testTimeoutMs'>,
  list: (typeof tasks.$inferSelect)[],
  k: number,
): Promise<HeldoutEval> {
  let passed = 0;
  let scored = 0;
  let anyPassed = 0;
  let scoredK = 0;
  for (const t of list) {
    const task = await loadStoredRepoTask(db, t.id);
    const attempt = async (seed: number, temperature: number) => {
      const out = await playRepoEpisode({ run, task, risk: t.risk, policy, manager, settings: s, seed, temperature });
      return out.infra ? null : out.result.grade!.reward === 1;
    };
    const greedy = await attempt(0, 0);
    if (greedy !== null) {
      scored++;
      if (greedy) passed++;
    }
    if (k > 0) {
      let ok = false;
      let any = false;
      for (let i = 0; i < k && !ok; i++) {
        const r = await attempt(1000 + i, run.config.temperature);
        if (r === null) continue;
        any = true;
        ok = r;
      }
      if (any) {
        scoredK++;
        if (ok) anyPassed++;
      }
    }
  }
  return { passAt1: scored ? passed / scored : 0, tasks: scored, passAtK: k > 0 ? (scoredK ? anyPassed / scoredK : 0) : null, k };
}
