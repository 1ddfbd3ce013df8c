import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { episodes, metricSamples, policyVersions, rewards, runs, tasks, turns } from '@/db/schema';
import { rlSample, type RlIterationMetric } from '@/core/metrics';
import { RL_QUEUES } from '@/core/queues';
import type { RunConfig } from '@/core/run-config';
import type { TaskLanguage } from '@/core/tasks';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { Tx } from '@/server/queue';
import { tryRunTransition } from '@/server/runs/lifecycle';
import { jobHandler, jobLogger, PermanentJobError } from '@/workers/jobs/job-handler';
import { heldoutEval, recordedHeldout, type HeldoutEval } from '../evaluate';
import { scoreInChunks } from '@/lib/policy/attention-budget';
import { buildSequences, generatedTokens, inSlotOrder } from '../learn/build-sequences';
import { infraFailure } from '../learn/infra-gate';
import { finishedEpisodes, iterationMetrics } from '../learn/iteration-metrics';
import { learnerUpdates } from '../learn/learner-updates';
import { selectBatch } from '../learn/select-batch';
import { buildLearnerBatch, needsReference, withLearnerDefaults, type TurnSeq } from '../learner-batch';
import { skippedStepsEvent } from '../learner-steps';
import { jobPhases, samplingStarted } from '../phase-events';
import { latestVersion, loadRunPolicyForTraining, publishCheckpoint, referenceParams, versionRow } from '../policy-store';
import { runRlSettings, type RlSettings } from '@/core/settings';
import { loadRun, type RlContext, type RunRow } from '../rl-context';
import { watchRunEnd } from '../run-end-watch';
import { runEvent, topUp } from '../schedule';
import { taskKind } from '../task-kinds/registry';
import type { TaskKind } from '../task-kinds/task-kind';

// rl.learn: the learner step of one iteration. The choices are pure steps under ../learn
// (unit-tested there); this is the I/O around them: load, train, evaluate, commit.

type IterationRows = Awaited<ReturnType<typeof loadIteration>>;
type Report = Awaited<ReturnType<typeof learnerUpdates>>;

/** The iteration's episodes with their rewards, in slot order. */
function loadIteration(db: Db, runId: string, iteration: number) {
  return db
    .select({ e: episodes, r: rewards })
    .from(episodes)
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(and(eq(episodes.runId, runId), eq(episodes.iteration, iteration)))
    .orderBy(asc(episodes.groupIndex), asc(episodes.sampleIndex));
}

/** Each training episode's task kind and language: the kind decides whole-episode sequences and truncation. */
async function episodeKinds(db: Db, ids: string[]): Promise<Map<string, { kind: TaskKind; language: TaskLanguage }>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: episodes.id, language: tasks.language, kind: tasks.kind })
    .from(episodes)
    .innerJoin(tasks, eq(tasks.id, episodes.taskId))
    .where(inArray(episodes.id, ids));
  return new Map(rows.map((r) => [r.id, { kind: taskKind(r.kind), language: r.language }]));
}

/** Reference (v0) logprobs of the sequences, at the sampling temperature like the stored logprobs and the training graph. */
async function referenceLogprobs(c: RlContext, db: Db, run: RunRow, policy: RlPolicy, sequences: TurnSeq[], config: RunConfig) {
  const v0 = await versionRow(db, run.id, 0);
  if (!v0) throw new PermanentJobError(`run ${run.id} has no reference policy (version 0)`);
  const ref = await referenceParams(run, v0, c.checkpoints(db), policy);
  const scored = await scoreInChunks(
    policy,
    sequences.map((q) => q.tokens),
    { params: ref.params, temperature: config.temperature },
  );
  await ref.release();
  return scored.map((x) => x.logprobs);
}

/** PPO's value estimates of the sequences (its policy has a value head). */
async function valueEstimates(run: RunRow, policy: RlPolicy, sequences: TurnSeq[]) {
  const scored = await scoreInChunks(
    policy,
    sequences.map((q) => q.tokens),
  );
  return scored.map((x) => {
    if (!x.values) throw new PermanentJobError(`run ${run.id} trains with PPO, but its policy has no value head (a checkpoint from before PPO was chosen?)`);
    return x.values;
  });
}

/**
 * Choose the batch, build its sequences (each kind says whether an episode is one sequence and
 * whether a message was cut off), and step the optimizer. Learning rate 0 is "no update" (a
 * control arm): the weights stay v0's and the learner is skipped.
 */
async function train(c: RlContext, db: Db, run: RunRow, iteration: number, eps: IterationRows, policy: RlPolicy, current: { version: number }) {
  const versions = await db.select({ id: policyVersions.id, version: policyVersions.version }).from(policyVersions).where(eq(policyVersions.runId, run.id));
  // configs are stored as created: options added since read their defaults
  const config = withLearnerDefaults(run.config);
  const batch = selectBatch(eps, { currentVersion: current.version, versionOf: new Map(versions.map((v) => [v.id, v.version])), config: run.config });
  const trainIds = batch.valid.map(({ e }) => e.id);
  const turnRows = inSlotOrder(trainIds.length ? await db.select().from(turns).where(inArray(turns.episodeId, trainIds)) : [], trainIds);
  const kinds = await episodeKinds(db, trainIds);
  const kindOf = (episodeId: string) => kinds.get(episodeId)!;
  const wholeEpisodes = new Set([...kinds].filter(([, k]) => k.kind.wholeEpisode).map(([id]) => id));
  const { sequences, maskedOverlong } = buildSequences(
    config,
    batch.trainEpisodes,
    turnRows,
    (t) => kindOf(t.episodeId).kind.truncated(policy, run, kindOf(t.episodeId), generatedTokens(t)),
    wholeEpisodes,
  );
  let report: Report | null = null;
  let klRewardPenalty = 0;
  if (sequences.length && run.config.learningRate > 0) {
    const refLogprobs = needsReference(config) ? await referenceLogprobs(c, db, run, policy, sequences, config) : undefined;
    const values = run.config.algorithm === 'ppo' ? await valueEstimates(run, policy, sequences) : undefined;
    const built = buildLearnerBatch(config, { episodes: batch.trainEpisodes, turns: sequences, refLogprobs, values });
    klRewardPenalty = built.klRewardPenalty;
    const present = new Set([...kinds.values()].map((k) => k.kind));
    const normTokens = Math.max(c.rl.maxNewTokens, ...[...present].map((k) => k.normTokens(config, policy, c.rl)));
    if (built.sequences.length) report = await learnerUpdates(policy, built.sequences, config, iteration, { normTokens });
  }
  return { batch, report, maskedOverlong, klRewardPenalty };
}

/** Commit the new version, the iteration's metrics and events, and the run's next step (or its completion). */
async function commitIteration(
  tx: Tx,
  o: {
    run: RunRow;
    iteration: number;
    parentId: string;
    saved: { sha256: string; size: number };
    provider: string;
    report: Report | null;
    metrics: ReturnType<typeof iterationMetrics>['metrics'];
    failures: ReturnType<typeof iterationMetrics>['failures'];
    ev: HeldoutEval;
  },
) {
  const { run, iteration, report, metrics, ev } = o;
  const runId = run.id;
  const next = iteration + 1;
  const [locked] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
  if (!locked || locked.currentIteration !== iteration) return { skipped: true };
  await tx
    .insert(policyVersions)
    .values({
      runId,
      version: next,
      parentId: o.parentId,
      sha256: o.saved.sha256,
      bytes: o.saved.size,
      executionProvider: report?.provider ?? o.provider,
      metrics,
    })
    .onConflictDoNothing();
  await tx.insert(metricSamples).values([
    // non-finite values (a skipped step's loss) are stored as NaN/Infinity, not hidden as 0
    ...Object.entries(metrics).map(([name, value]) => rlSample(runId, name as RlIterationMetric, next, value)),
    ...[...o.failures].map(([status, n]) => rlSample(runId, 'sandbox_failures', next, n, { status })),
    ...(ev.passAtK != null ? [rlSample(runId, 'heldout_pass_at_k', next, ev.passAtK, { k: String(ev.k) })] : []),
  ]);
  const done = next >= locked.config.iterations;
  await tx.update(runs).set({ currentIteration: next, lastRewardMean: metrics.reward_mean, updatedAt: new Date() }).where(eq(runs.id, runId));
  // what the learner ran on: the provider, and for a registered model what its products computed in (and fp16's loss scale)
  const ran = report
    ? {
        provider: report.provider,
        ...(report.matmuls ? { matmuls: report.matmuls } : {}),
        ...(report.lossScale !== undefined ? { lossScale: report.lossScale } : {}),
      }
    : {};
  // mixed precision says what ran (native half kernels or the CPU's emulation, and fp16's loss scale)
  const mixed =
    report?.matmuls && report.matmuls !== 'fp32'
      ? ` (learner: ${report.provider}, ${report.matmuls}${report.lossScale !== undefined ? `, loss scale ${report.lossScale}` : ''})`
      : '';
  // numbered from 1, like the charts' x (the version it produced) and the overview's "Iteration k / n"
  const trained = `iteration ${next} of ${locked.config.iterations} trained: reward ${metrics.reward_mean!.toFixed(3)}, held-out pass@1 ${ev.passAt1.toFixed(3)}, policy v${next}${mixed}`;
  // a run paused (or cancelled) meanwhile is not completed here: resuming a paused one does it
  const completed =
    done && (await tryRunTransition(tx, runId, 'complete', `system:${RL_QUEUES.learn}`, { message: trained, data: { iteration, version: next, ...ran } }));
  if (!completed) await runEvent(tx, runId, 'iteration', trained, { iteration, version: next, ...ran });
  const skipped = report && skippedStepsEvent(iteration, report);
  if (skipped) await runEvent(tx, runId, skipped.type, skipped.message, skipped.data);
  if (!done) {
    await topUp(tx, runId);
    await samplingStarted(tx, locked, next, `system:${RL_QUEUES.learn}`);
  }
  return { version: next, rewardMean: metrics.reward_mean, heldoutPassAt1: ev.passAt1 };
}

/**
 * rl.learn: load the iteration's episodes, rewards and turns; choose the batch, build its
 * sequences, step the optimizer, save the new policy version, evaluate it held-out; then commit
 * the version, the metrics and the run's next step.
 */
export function learnJob(c: RlContext) {
  return jobHandler(RL_QUEUES.learn, {
    leaseMs: c.rl.leaseMs(300_000),
    run: async (job, ctx) => {
      const { runId, iteration } = job.payload;
      const run = await loadRun(ctx.db, runId);
      const s = runRlSettings(c.rl, run.config);
      if (run.currentIteration !== iteration || run.status === 'cancelled' || run.status === 'failed') return;
      const phases = jobPhases(ctx.db, run, job, s);
      await phases.started('learning', iteration);
      // bound to the job and its run (the payload's runId); `stage: learner` and the iteration put it on the episodes' timelines
      const log = jobLogger(ctx).child({ stage: 'learner', iteration });
      const t0 = performance.now();
      const eps = await loadIteration(ctx.db, runId, iteration);
      // mostly infrastructure failures: the sandboxes are broken, so fail the run with the reason rather than train on the rest
      const broken = infraFailure(
        eps.map(({ e }) => e),
        s.infraFailRate,
        iteration,
      );
      if (broken) log.error({ data: broken.data }, `learner: failing the run: ${broken.message}`);
      if (broken)
        return async (tx) => {
          await tryRunTransition(tx, runId, 'fail', `system:${RL_QUEUES.learn}`, { message: broken.message, error: broken.message, data: broken.data });
          return { failed: broken.message };
        };
      const current = await latestVersion(ctx.db, runId);
      if (!current) throw new Error('run has no policy version');
      // a run cancelled meanwhile stops its held-out evaluation at the next attempt
      const watch = watchRunEnd(ctx.db, runId, { signal: ctx.signal });
      try {
        return await learnIteration(c, ctx, { run, s, iteration, eps, current, phases, log, t0, signal: watch.signal });
      } catch (e) {
        const ended = watch.ended();
        if (!ended) throw e;
        log.info({ status: ended.status }, `learner: ${ended.message} (iteration ${iteration})`);
        return;
      } finally {
        watch.stop();
      }
    },
  });
}

type LearnInput = {
  run: RunRow;
  s: RlSettings;
  iteration: number;
  eps: IterationRows;
  current: NonNullable<Awaited<ReturnType<typeof latestVersion>>>;
  phases: ReturnType<typeof jobPhases>;
  log: ReturnType<typeof jobLogger>;
  t0: number;
  signal: AbortSignal;
};

/** Train, publish and evaluate the iteration's policy; the commit it returns makes it the run's. */
async function learnIteration(c: RlContext, ctx: { db: Db }, { run, s, iteration, eps, current, phases, log, t0, signal }: LearnInput) {
  const runId = run.id;
  const policy = await loadRunPolicyForTraining(run, current, c.checkpoints(ctx.db));
  try {
    const { batch, report, maskedOverlong, klRewardPenalty } = await train(c, ctx.db, run, iteration, eps, policy, current);
    const updateS = (performance.now() - t0) / 1000;
    log.info(
      {
        episodes: eps.length,
        trained: batch.valid.length,
        sequences: report?.sequences ?? 0,
        durationMs: Math.round(updateS * 1000),
        provider: report?.provider ?? null,
      },
      report
        ? `learner step of iteration ${iteration}: ${report.sequences} sequence(s) from ${batch.valid.length} of ${eps.length} episode(s) in ${Math.round(updateS * 1000)} ms on ${report.provider}`
        : `learner step of iteration ${iteration}: no update (${run.config.learningRate === 0 ? 'learning rate 0' : 'nothing to train on'}), ${eps.length} episode(s)`,
    );
    const next = iteration + 1;
    const saved = await publishCheckpoint(c.checkpoints(ctx.db).store, policy, runId, next, c.dataDir);
    const withK = s.passAtK > 0 && (next >= run.config.iterations || (s.passAtKEvery > 0 && next % s.passAtKEvery === 0));
    // No update → v0's weights, and the evaluation is greedy / fixed-seed: v0's numbers stand.
    const ev =
      run.config.learningRate === 0
        ? await recordedHeldout(ctx.db, runId, withK ? s.passAtK : 0)
        : await phases.heldout(
            `policy v${next}`,
            (onTask) => heldoutEval(ctx.db, c.sandboxes(ctx.db), policy, run, s, { k: withK ? s.passAtK : 0, onTask, signal }),
            iteration,
          );
    const finished = finishedEpisodes(eps).map(({ e }) => e.id);
    const epTurns = finished.length
      ? await ctx.db
          .select({ episodeId: turns.episodeId, policyMs: turns.policyMs, sandboxMs: turns.sandboxMs, lossMask: turns.lossMask, toolCalls: turns.toolCalls })
          .from(turns)
          .where(inArray(turns.episodeId, finished))
      : [];
    const { metrics, failures } = iterationMetrics({
      episodes: eps,
      batch,
      turns: epTurns,
      report,
      heldout: ev,
      maskedOverlong,
      klRewardPenalty,
      updateS,
      now: Date.now(),
    });
    log.info(
      { version: next, rewardMean: metrics.reward_mean ?? null, heldoutPassAt1: ev.passAt1, loss: metrics.loss ?? null, kl: metrics.kl ?? null },
      `iteration ${iteration} learned: policy v${next}, reward ${metrics.reward_mean?.toFixed(3) ?? '?'}, held-out pass@1 ${ev.passAt1.toFixed(3)}`,
    );
    const provider = policy.provider;
    return (tx: Tx) => commitIteration(tx, { run, iteration, parentId: current.id, saved, provider, report, metrics, failures, ev });
  } finally {
    await policy.release();
  }
}
