import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { metricSamples, policyVersions, runs } from '@/db/schema';
import { rlSample } from '@/core/metrics';
import { RL_QUEUES } from '@/core/queues';
import type { ClaimedJob, Tx } from '@/server/queue';
import { tryRunTransition } from '@/server/runs/lifecycle';
import { isTerminal } from '@/core/run-status';
import { checkIsolationPolicy } from '@/lib/sandbox/runtimes/isolation';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { jobHandler, jobLogger, PermanentJobError } from '@/workers/jobs/job-handler';
import { agentRunStart } from '../agent-run-start';
import { heldoutEval } from '../evaluate';
import { jobPhases, samplingStarted } from '../phase-events';
import { bytePolicy, latestVersion, publishCheckpoint } from '../policy-store';
import { runRlSettings } from '@/core/settings';
import { loadRun, type RlContext, type RunRow } from '../rl-context';
import { createRunPolicy } from '../run-policy';
import { watchRunEnd } from '../run-end-watch';
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
async function makeVersionZero(c: RlContext, db: Db, run: RunRow, job: ClaimedJob, start: RunStart, signal: AbortSignal): Promise<VersionZero> {
  const s = runRlSettings(c.rl, run.config);
  const made = await createRunPolicy(db, run, start, s, c.checkpoints(db));
  start.notes.push(...made.notes);
  let policy = made.policy;
  try {
    return await prepare();
  } finally {
    await policy.release();
  }

  async function prepare(): Promise<VersionZero> {
    const phases = jobPhases(db, run, job, s);
    const warm = policy.kind === 'byte' && start.sftSteps > 0;
    const init = warm ? await phases.heldout('the initialisation', (onTask) => heldoutEval(db, c.sandboxes(db), policy, run, s, { onTask, signal })) : null;
    const sft = warm
      ? {
          ...(await phases.sft(s.sftSteps, () =>
            sftWarmStart(db, bytePolicy(run, policy, 'the SFT warm start'), run.suiteId!, s.sftSteps, run.config.seed, signal),
          )),
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
    const ev = await phases.heldout('policy v0', (onTask) => heldoutEval(db, c.sandboxes(db), policy, run, s, { k: s.passAtK, onTask, signal }));
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
}

/**
 * Commit version 0 (when this job made it), its metrics and notes, then put the run to work.
 * The run has been `running` since this job started it; v0 is committed even if an operator
 * paused it meanwhile (resuming then samples from it), and only once: a second job that made it
 * too (a resume during the preparation) adds nothing.
 */
async function commitVersionZero(tx: Tx, run: RunRow, start: RunStart, created: VersionZero | undefined) {
  const runId = run.id;
  const [locked] = await tx.select({ status: runs.status }).from(runs).where(eq(runs.id, runId)).for('update');
  if (!locked || isTerminal(locked.status)) return;
  if (created) {
    const inserted = await tx
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
      .onConflictDoNothing()
      .returning({ id: policyVersions.id });
    if (inserted.length > 0) {
      await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_1', 0, created.passAt1, { tasks: String(created.heldout) }));
      if (created.initPassAt1 != null) await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_1_before_sft', 0, created.initPassAt1));
      if (created.passAtK != null) await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_k', 0, created.passAtK, { k: String(created.k) }));
      for (const n of start.notes) await runEvent(tx, runId, n.type, n.message, n.data);
      await runEvent(tx, runId, 'version_zero', `policy version 0 ready: held-out pass@1 ${created.passAt1.toFixed(3)}; training starts`, {
        sft: created.sft ?? null,
        heldoutPassAt1: created.passAt1,
      });
    }
  }
  if (locked.status !== 'running') return; // paused meanwhile: resuming puts it to work
  await topUp(tx, runId);
  await samplingStarted(tx, run, 0, `system:${RL_QUEUES.advance}`);
}

/** rl.advance: start a queued run and prepare it (policy version 0, optional SFT warm start, baseline held-out eval), or top up a running one. */
export function advanceJob(c: RlContext) {
  return jobHandler(RL_QUEUES.advance, {
    leaseMs: c.rl.leaseMs(120_000),
    run: async (job, ctx) => {
      let run = await loadRun(ctx.db, job.payload.runId);
      // prepared: version 0 is committed (an iteration trained implies it)
      const prepared = run.status === 'running' && (run.currentIteration > 0 || !!(await latestVersion(ctx.db, run.id)));
      if (prepared) {
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
      if (run.status !== 'queued' && run.status !== 'running') return;
      // a runtime the policy names but this host lacks fails the run now, never downgraded
      try {
        checkIsolationPolicy(run.config, runtimeOptions(c.settings));
      } catch (err) {
        throw new PermanentJobError((err as Error).message);
      }
      // The run is running from its first job: preparing version 0 (warm start, held-out
      // evaluation) is part of it. Committed now, before the minutes that takes; this job does
      // the work, so no other advance job is woken (a retry of this one, finding the run
      // running without v0, prepares it again).
      if (run.status === 'queued') {
        const started = await ctx.db.transaction((tx) =>
          tryRunTransition(tx, run.id, 'start', `system:${RL_QUEUES.advance}`, {
            message: 'started: preparing policy version 0 (warm start and held-out evaluation)',
            wake: false,
          }),
        );
        if (!started) return; // paused or cancelled before it began
        run = started as RunRow;
      }
      // a repository suite: no I/O warm start, a context that holds an agent episode (../agent-run-start.ts)
      const start = await agentRunStart(ctx.db, run, runRlSettings(c.rl, run.config));
      if (await latestVersion(ctx.db, run.id)) return (tx) => commitVersionZero(tx, run, start, undefined);
      // a run cancelled meanwhile stops its preparation at the next SFT step or held-out attempt
      const watch = watchRunEnd(ctx.db, run.id, { signal: ctx.signal });
      try {
        const created = await makeVersionZero(c, ctx.db, run, job, start, watch.signal);
        return (tx) => commitVersionZero(tx, run, start, created);
      } catch (e) {
        const ended = watch.ended();
        if (!ended) throw e;
        jobLogger(ctx).info({ status: ended.status }, `rl.advance: ${ended.message} (preparing policy version 0)`);
        return;
      } finally {
        watch.stop();
      }
    },
  });
}
