import { and, asc, eq } from 'drizzle-orm';
import type { RlMetric } from '@/core/metrics';
import type { Db } from '@/db/client';
import { metricSamples, tasks } from '@/db/schema';
import type { RunConfig } from '@/core/run-config';
import type { TaskTests } from '@/core/tasks';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { scoringOptions } from '@/workers/rl/reward/scoring-options';
import { runEpisode } from './episode';
import { runTextEpisode } from './text-episode';
import { bytePolicy } from './policy-store';
import { agentHeldoutEval } from './agent-heldout';
import type { RlSettings } from '@/core/settings';

export type HeldoutEval = { passAt1: number; tasks: number; passAtK: number | null; k: number };

/**
 * Held-out evaluation, single-turn (repository tasks: agent episodes, ./agent-heldout.ts). pass@1: one greedy attempt per task, share fully
 * passing. pass@k (when k > 0): k sampled attempts at the run's temperature per task,
 * share of tasks where any passes (the n = k estimator). Tasks whose sandbox failed
 * (infrastructure) are left out of both, never counted as failures.
 */
export async function heldoutEval(
  db: Db,
  manager: SandboxManager,
  policy: RlPolicy,
  run: { id: string; suiteId: string | null; config: RunConfig },
  s: Pick<RlSettings, 'heldoutLimit' | 'maxNewTokens' | 'testTimeoutMs'>,
  o: { k?: number } = {},
): Promise<HeldoutEval> {
  const k = o.k ?? 0;
  let list = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.suiteId, run.suiteId!), eq(tasks.split, 'heldout')))
    .orderBy(asc(tasks.externalId));
  if (s.heldoutLimit > 0) list = list.slice(0, s.heldoutLimit);
  // repository tasks: agent episodes, graded like training's (./agent-heldout.ts); never scored as I/O
  const repo = list.filter((t) => t.kind === 'repo');
  if (repo.length) return agentHeldoutEval(db, manager, policy, run, s, repo, k);
  let passed = 0;
  let scored = 0;
  let anyPassed = 0;
  let scoredK = 0;
  for (const t of list) {
    const tests = t.tests as TaskTests;
    const attempt = (seed: number, temperature: number) => {
      const common = {
        manager,
        scoring: scoringOptions(run, { ...t, tests }, s),
        seed,
        temperature,
        topP: run.config.topP,
        maxNewTokens: s.maxNewTokens,
        context: { runId: run.id, episodeId: '' },
      };
      return tests.kind === 'text'
        ? runTextEpisode({ ...common, policy, task: { prompt: t.prompt, checks: tests.checks } })
        : runEpisode({
            ...common,
            policy: bytePolicy(run, policy, 'input/output tasks'),
            task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests },
            maxTurns: 1,
            feedbackBudget: 0,
          });
    };
    const greedy = await attempt(0, 0);
    if (greedy.score.status === 'scored') {
      scored++;
      if (greedy.score.components.passRate === 1) passed++;
    }
    if (k > 0) {
      let ok = false;
      let any = false;
      for (let i = 0; i < k && !ok; i++) {
        const out = await attempt(1000 + i, run.config.temperature);
        if (out.score.status !== 'scored') continue;
        any = true;
        ok = out.score.components.passRate === 1;
      }
      if (any) {
        scoredK++;
        if (ok) anyPassed++;
      }
    }
  }
  return { passAt1: scored ? passed / scored : 0, tasks: scored, passAtK: k > 0 ? (scoredK ? anyPassed / scoredK : 0) : null, k };
}

/**
 * The held-out numbers recorded for v0 (step 0), for a run that never updates (learning rate
 * 0, a control arm): its weights are v0's and the evaluation is greedy / fixed-seed, so
 * evaluating again would only repeat them, at the cost of a whole evaluation per iteration.
 */
export async function recordedHeldout(db: Db, runId: string, k: number): Promise<HeldoutEval> {
  const rows = await db
    .select()
    .from(metricSamples)
    .where(and(eq(metricSamples.runId, runId), eq(metricSamples.step, 0)));
  const named = (name: RlMetric) => rows.find((m) => m.name === name);
  const at1 = named('heldout_pass_at_1');
  if (!at1) throw new Error(`run ${runId} has no held-out pass@1 at step 0 to carry forward; its start did not record one`);
  const atK = k > 0 ? named('heldout_pass_at_k') : undefined;
  return { passAt1: at1.value, tasks: Number(at1.labels?.tasks ?? 0), passAtK: atK ? atK.value : null, k: atK ? Number(atK.labels?.k ?? k) : k };
}
