import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { metricSamples, policyVersions, runs } from '@/db/schema';
import { rlSample } from '@/core/metrics';
import { RL_QUEUES } from '@/core/queues';
import type { ClaimedJob, Tx } from '@/server/queue';
import { applyRunTransition, tryRunTransition } from '@/server/runs/lifecycle';
import { checkIsolationPolicy } from '@/lib/sandbox/runtimes/isolation';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { jobHandler, PermanentJobError } from '@/workers/jobs/job-handler';
import { agentRunStart } from '../agent-run-start';
import { heldoutEval } from '../evaluate';
import { jobPhases, samplingStarted } from '../phase-events';
import { bytePolicy, latestVersion, publishCheckpoint } from '../policy-store';
import { runRlSettings } from '@/core/settings';
import { loadRun, type RlContext, type RunRow } from '../rl-context';
import { createRunPolicy } from '../run-policy';
import { runEvent, topUp } from '../schedule';
import { sftWarmStart, withOptimizer } from '../sft';

type RunStart = Awaited<ReturnType<typeof agentRunStart>>;

/** Policy version 0 as this job made it, with its held-out numbers, to commit with the run's start. */
type VersionZero = {
  sha256: string;
  bytes: number;
  provider: string;
  sft: unknown;
  initPassAt1: number | null;
  passAt1: number;
  heldout: number;
  passAtK: number | null;
  k: number;
};

/**
 * Make policy version 0: the byte model from scratch (with the SFT warm start) or a registered
 * model as it is (../run-policy.ts); save it by hash and evaluate it held-out. With a warm start,
 * the random initialisation is evaluated first, so the curve shows what the warm start adds.
 */
async function makeVersionZero(c: RlContext, db: Db, run: RunRow, job: ClaimedJob, start: RunStart): Promise<VersionZero> {
  const s = runRlSettings(c.rl, run.config);
  const made = await createRunPolicy(db, run, start, s, c.checkpoints(db));
  start.notes.push(...made.notes);
  let policy = made.policy;
  const phases = jobPhases(db, run, job, s);
  const warm = policy.kind === 'byte' && start.sftSteps > 0;
  const init = warm ? await phases.heldout('the initialisation', () => heldoutEval(db, c.sandboxes(db), policy, run, s)) : null;
  const sft = warm
    ? {
        ...(await phases.sft(s.sftSteps, () => sftWarmStart(db, bytePolicy(run, policy, 'the SFT warm start'), run.suiteId!, s.sftSteps, run.config.seed))),
        heldoutPassAt1Before: init?.passAt1,
      }
    : null;
  // RL gets its own learning-rate phase: the run's learning rate, constant.
  // (A control arm, learning rate 0, never steps: it keeps the warm start's optimizer.)
  if (run.config.learningRate > 0 && policy.kind === 'byte')
    policy = await withOptimizer(bytePolicy(run, policy, 'the SFT warm start'), {
      lr: run.config.learningRate,
      warmupSteps: 0,
      totalSteps: Math.max(1, run.config.iterations),
      minLrRatio: 1,
    });
  const saved = await publishCheckpoint(c.checkpoints(db).store, policy, run.id, 0, c.dataDir);
  const ev = await phases.heldout('policy v0', () => heldoutEval(db, c.sandboxes(db), policy, run, s, { k: s.passAtK }));
  await policy.release();
  return {
    sha256: saved.sha256,
    bytes: saved.size,
    provider: policy.provider,
    sft,
    initPassAt1: init?.passAt1 ?? null,
    passAt1: ev.passAt1,
    heldout: ev.tasks,
    passAtK: ev.passAtK,
    k: ev.k,
  };
}

/** Commit version 0 (when this job made it), its metrics and notes, and start the run. */
async function commitStart(tx: Tx, run: RunRow, start: RunStart, created: VersionZero | undefined) {
  const runId = run.id;
  const [locked] = await tx.select({ status: runs.status }).from(runs).where(eq(runs.id, runId)).for('update');
  if (locked?.status !== 'queued') return;
  if (created) {
    await tx
      .insert(policyVersions)
      .values({
        runId,
        version: 0,
        sha256: created.sha256,
        bytes: created.bytes,
        executionProvider: created.provider,
        isReference: true,
        metrics: { heldout_pass_at_1: created.passAt1 },
      })
      .onConflictDoNothing();
    await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_1', 0, created.passAt1, { tasks: String(created.heldout) }));
    if (created.initPassAt1 != null) await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_1_before_sft', 0, created.initPassAt1));
    if (created.passAtK != null) await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_k', 0, created.passAtK, { k: String(created.k) }));
    for (const n of start.notes) await runEvent(tx, runId, n.type, n.message, n.data);
  }
  const v0 = await latestVersion(tx, runId);
  await applyRunTransition(tx, runId, 'start', `system:${RL_QUEUES.advance}`, {
    message: `training started from policy version ${v0?.version ?? 0}`,
    data: { sft: created?.sft ?? null, heldoutPassAt1: created?.passAt1 },
  });
  // entering running also enqueued an advance job (server/runs/lifecycle.ts); topUp is idempotent
  await topUp(tx, runId);
  await samplingStarted(tx, run, 0, `system:${RL_QUEUES.advance}`);
}

/** rl.advance: start a queued run (policy version 0, optional SFT warm start, baseline held-out eval), or top up a running one. */
export function advanceJob(c: RlContext) {
  return jobHandler(RL_QUEUES.advance, {
    leaseMs: c.rl.leaseMs(120_000),
    run: async (job, ctx) => {
      const run = await loadRun(ctx.db, job.payload.runId);
      if (run.status === 'running') {
        return async (tx) => {
          // every iteration was trained while the run was paused (the learner cannot complete
          // a paused run): completing it is what resuming it leaves to do
          if (run.currentIteration >= run.config.iterations) {
            await tryRunTransition(tx, run.id, 'complete', `system:${RL_QUEUES.advance}`, {
              message: `all ${run.config.iterations} iterations trained`,
              data: { iteration: run.currentIteration },
            });
          } else await topUp(tx, run.id);
        };
      }
      if (run.status !== 'queued') return;
      // a runtime the policy names but this host lacks fails the run now, never downgraded
      try {
        checkIsolationPolicy(run.config, runtimeOptions(c.settings));
      } catch (err) {
        throw new PermanentJobError((err as Error).message);
      }
      // a repository suite: no I/O warm start, a context that holds an agent episode (../agent-run-start.ts)
      const start = await agentRunStart(ctx.db, run, runRlSettings(c.rl, run.config));
      const created = (await latestVersion(ctx.db, run.id)) ? undefined : await makeVersionZero(c, ctx.db, run, job, start);
      return (tx) => commitStart(tx, run, start, created);
    },
  });
}
