import { and, asc, eq } from 'drizzle-orm';
import type { RlMetric } from '@/core/metrics';
import type { Db } from '@/db/client';
import { metricSamples, tasks } from '@/db/schema';
import type { RunConfig } from '@/core/run-config';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { RlSettings } from '@/core/settings';
import { taskKind } from './task-kinds/registry';

export type HeldoutEval = { passAt1: number; tasks: number; passAtK: number | null; k: number };

/**
 * Held-out evaluation, each task by its kind (./task-kinds: I/O and text single-turn, repository
 * tasks as agent episodes graded like training's). pass@1: one greedy attempt per task, share
 * fully passing. pass@k (when k > 0): k sampled attempts at the run's temperature per task,
 * share of tasks where any passes (the n = k estimator). Tasks whose attempt failed for
 * infrastructure reasons are left out of both, never counted as failures.
 */
export async function heldoutEval(
  db: Db,
  manager: SandboxManager,
  policy: RlPolicy,
  run: { id: string; suiteId: string | null; config: RunConfig },
  s: Pick<RlSettings, 'heldoutLimit' | 'maxNewTokens' | 'testTimeoutMs'>,
  o: { k?: number; onTask?: (done: number, total: number) => Promise<void>; signal?: AbortSignal } = {},
): Promise<HeldoutEval> {
  const k = o.k ?? 0;
  let list = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.suiteId, run.suiteId!), eq(tasks.split, 'heldout')))
    .orderBy(asc(tasks.externalId));
  if (s.heldoutLimit > 0) list = list.slice(0, s.heldoutLimit);
  let passed = 0;
  let scored = 0;
  let anyPassed = 0;
  let scoredK = 0;
  let done = 0;
  for (const task of list) {
    const kind = taskKind(task.kind);
    // a run that ended (or a job that lost its lease) stops between attempts
    const attempt = (seed: number, temperature: number) => {
      o.signal?.throwIfAborted();
      return kind.heldoutAttempt({ db, run, task, policy, manager, settings: s, seed, temperature });
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
    await o.onTask?.(++done, list.length);
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
