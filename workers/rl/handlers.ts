import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { episodes, metricSamples, policyVersions, rewards, runs, tasks, turns } from '@/db/schema';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { sampleForReview } from '@/server/reviews/sampler';
import { rlSettings, type Settings } from '@/core/settings';
import type { TaskLanguage, TaskTests } from '@/core/tasks';
import { PermanentJobError, type JobHandler } from '@/workers/jobs/job-handler';
import { checkIsolationPolicy } from '@/lib/sandbox/runtimes/isolation';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { runEpisode, wasTruncated } from './episode';
import { agentMessageCut, agentTokenBudget, repoEpisodeIds, repoEpisodeJob } from './agent-episode';
import { agentRenderer } from './agent-renderer';
import { agentRunStart } from './agent-run-start';
import { heldoutEval, recordedHeldout } from './evaluate';
import {
  bytePolicy,
  latestVersion,
  loadRunPolicy,
  loadRunPolicyForTraining,
  publishCheckpoint,
  referenceParams,
  releasePolicies,
  versionRow,
  type CheckpointSource,
} from './policy-store';
import { createRunPolicy } from './run-policy';
import { runTextEpisode, textTruncated } from './text-episode';
import type { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { nodeName } from '@/lib/scheduler/node';
import { episodeSeed, runEvent, topUp } from './schedule';
import { scoringOptions } from './reward/scoring-options';
import { rlSample, type RlIterationMetric } from '@/core/metrics';
import { RL_QUEUES } from '@/core/queues';
import { failRunOnGiveUp } from './give-up';
import { applyRunTransition, tryRunTransition } from '@/server/runs/lifecycle';
import { buildLearnerBatch, needsReference, withLearnerDefaults } from './learner-batch';
import { skippedStepsEvent } from './learner-steps';
import { sftWarmStart, withOptimizer } from './sft';
import { jobPhases, samplingStarted } from './phase-events';
import { buildSequences, generatedTokens, inSlotOrder } from './learn/build-sequences';
import { finishedEpisodes, iterationMetrics } from './learn/iteration-metrics';
import { infraFailure } from './learn/infra-gate';
import { learnerUpdates } from './learn/learner-updates';
import { scoreInChunks } from './learn/attention-budget';
import { selectBatch } from './learn/select-batch';
import { advancePayload, episodePayload, learnPayload } from './payloads';
import { storeDirFor } from '@/lib/sandbox/env/env-store';

async function loadRun(db: Db, runId: string) {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) throw new PermanentJobError(`no run ${runId}`);
  return run;
}

/** What an infrastructure failure was, for the episode row and the operator reading it. */
const infraReason = (score: { status: string; harness: { harnessError: string | null; exec: { error?: string; stderr: string } } }) =>
  `${score.status}: ${(score.harness.harnessError || score.harness.exec.error || score.harness.exec.stderr || 'no detail').slice(0, 480)}`;

/** What the RL handlers need from their process besides settings. */
export type RlDeps = {
  /** the worker's data directory: policy checkpoints (policies/<run>/) and sandbox state */
  dataDir: string;
  /** the environment store (default: <dataDir>/envs) */
  envStore?: string;
};

/**
 * The RL job handlers (rl.advance, rl.episode, rl.learn), built from settings and the
 * process's directories, like `sandboxHandlers(options)`: one sandbox pool per instance
 * (closed by `close`), nothing read from the environment here.
 */
export function createRlHandlers(settings: Settings, deps: RlDeps): JobHandler[] {
  const rl = rlSettings(settings);
  const s = rl;
  let store: ArtifactStore | undefined;
  /** the artifact store the settings choose, and this host's cache of it */
  const artifacts = (db: Db) => (store ??= openArtifactStore(settings, { dataDir: deps.dataDir, db }));
  /** checkpoints by hash */
  const checkpoints = (db: Db): CheckpointSource => ({ store: artifacts(db), dataDir: deps.dataDir, db });
  let manager: SandboxManager | undefined;
  // environments another host published are fetched by hash rather than rebuilt here
  const sandboxes = (db: Db) =>
    (manager ??= new SandboxManager({
      dataDir: deps.dataDir,
      storeDir: deps.envStore ?? storeDirFor(deps.dataDir, settings.CRUCIBLE_ENV_STORE),
      runtime: runtimeOptions(settings),
      records: sandboxRecords(db, { images: artifacts(db) }),
      actor: 'system:rl',
    }));
  const host = nodeName(settings);

  /** Start a queued run (policy version 0, optional SFT warm start, baseline held-out eval), or top up a running one. */
  const advanceHandler: JobHandler = {
    queue: RL_QUEUES.advance,
    payload: advancePayload,
    leaseMs: rl.leaseMs(120_000),
    run: async (job, ctx) => {
      const runId = String(job.payload.runId);
      const run = await loadRun(ctx.db, runId);
      if (run.status === 'running') {
        return async (tx) => {
          // every iteration was trained while the run was paused (the learner cannot complete
          // a paused run): completing it is what resuming it leaves to do
          if (run.currentIteration >= run.config.iterations) {
            await tryRunTransition(tx, runId, 'complete', `system:${RL_QUEUES.advance}`, {
              message: `all ${run.config.iterations} iterations trained`,
              data: { iteration: run.currentIteration },
            });
          } else await topUp(tx, runId);
        };
      }
      if (run.status !== 'queued') return;
      // a runtime the policy names but this host lacks fails the run now, never downgraded
      try {
        checkIsolationPolicy(run.config, runtimeOptions(settings));
      } catch (err) {
        throw new PermanentJobError((err as Error).message);
      }
      let v0 = await latestVersion(ctx.db, runId);
      let created:
        | {
            sha256: string;
            bytes: number;
            provider: string;
            sft: unknown;
            initPassAt1: number | null;
            passAt1: number;
            heldout: number;
            passAtK: number | null;
            k: number;
          }
        | undefined;
      // a repository suite: no I/O warm start, a context that holds an agent episode (./agent-run-start.ts)
      const start = await agentRunStart(ctx.db, run, s);
      if (!v0) {
        // the byte model from scratch (SFT warm start below), or a registered model as it is (./run-policy.ts)
        const made = await createRunPolicy(ctx.db, run, start, s, checkpoints(ctx.db));
        start.notes.push(...made.notes);
        let policy = made.policy;
        // held-out pass@1 of the random initialisation, so the curve shows what the warm start adds
        const phases = jobPhases(ctx.db, run, job, s);
        const warm = policy.kind === 'byte' && start.sftSteps > 0;
        const init = warm ? await phases.heldout('the initialisation', () => heldoutEval(ctx.db, sandboxes(ctx.db), policy, run, s)) : null;
        const sft = warm
          ? {
              ...(await phases.sft(s.sftSteps, () =>
                sftWarmStart(ctx.db, bytePolicy(run, policy, 'the SFT warm start'), run.suiteId!, s.sftSteps, run.config.seed),
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
        const saved = await publishCheckpoint(checkpoints(ctx.db).store, policy, runId, 0, deps.dataDir);
        const ev = await phases.heldout('policy v0', () => heldoutEval(ctx.db, sandboxes(ctx.db), policy, run, s, { k: s.passAtK }));
        created = {
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
        await policy.release();
      }
      return async (tx) => {
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
          if (created.passAtK != null)
            await tx.insert(metricSamples).values(rlSample(runId, 'heldout_pass_at_k', 0, created.passAtK, { k: String(created.k) }));
          v0 = await latestVersion(tx, runId);
          for (const n of start.notes) await runEvent(tx, runId, n.type, n.message, n.data);
        }
        await applyRunTransition(tx, runId, 'start', `system:${RL_QUEUES.advance}`, {
          message: `training started from policy version ${v0?.version ?? 0}`,
          data: { sft: created?.sft ?? null, heldoutPassAt1: created?.passAt1 },
        });
        // entering running also enqueued an advance job (server/runs/lifecycle.ts); topUp is idempotent
        await topUp(tx, runId);
        await samplingStarted(tx, run, 0, `system:${RL_QUEUES.advance}`);
      };
    },
  };

  /** One multi-turn episode; its turns, reward and the run's next step commit with the job. */
  const episodeHandler: JobHandler = {
    queue: RL_QUEUES.episode,
    payload: episodePayload,
    leaseMs: rl.leaseMs(60_000),
    run: async (job, ctx) => {
      const episodeId = String(job.payload.episodeId);
      const [row] = await ctx.db
        .select({ e: episodes, t: tasks, run: runs })
        .from(episodes)
        .innerJoin(runs, eq(runs.id, episodes.runId))
        .innerJoin(tasks, eq(tasks.id, episodes.taskId))
        .where(eq(episodes.id, episodeId));
      if (!row) throw new PermanentJobError(`no episode ${episodeId}`);
      if (row.e.status !== 'running') return; // already finished (or reset by a cancel)
      const { e, t, run } = row;
      if (run.status === 'cancelled' || run.status === 'failed' || run.status === 'completed') {
        // the run ended after this episode was dispatched: don't spend a sandbox on it
        return async (tx) => {
          await tx
            .update(episodes)
            .set({ status: 'cancelled', endReason: `run ${run.status}` })
            .where(and(eq(episodes.id, episodeId), eq(episodes.status, 'running')));
        };
      }
      const version = await latestVersion(ctx.db, run.id);
      if (!version) throw new Error('run has no policy version yet');
      // A quarantined environment is refused by the sandbox manager (status env_mismatch): the
      // episode is then an infrastructure failure, masked, never scored 0.
      const policy = await loadRunPolicy(run, version, checkpoints(ctx.db));
      // a repository task: an agent episode with tools in one sandbox (./agent-episode.ts)
      if (t.kind === 'repo')
        return repoEpisodeJob({
          db: ctx.db,
          run,
          episode: e,
          task: t,
          version,
          policy,
          manager: sandboxes(ctx.db),
          settings: s,
          host,
          workerId: ctx.workerId,
          signal: ctx.signal,
        });
      const startedAt = new Date();
      const tests = t.tests as TaskTests;
      const common = {
        manager: sandboxes(ctx.db),
        scoring: scoringOptions(run, { ...t, tests }, s),
        seed: episodeSeed(run.config.seed, e.iteration, e.groupIndex, e.sampleIndex),
        temperature: run.config.temperature,
        topP: run.config.topP,
        maxNewTokens: s.maxNewTokens,
        context: { runId: run.id, episodeId },
        signal: ctx.signal,
      };
      // a text task: one continuation scored by the checker program (./text-episode.ts)
      const out =
        tests.kind === 'text'
          ? await runTextEpisode({ ...common, policy, task: { prompt: t.prompt, checks: tests.checks } })
          : await runEpisode({
              ...common,
              policy: bytePolicy(run, policy, 'input/output tasks'),
              task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests },
              maxTurns: run.config.maxTurns,
              feedbackBudget: s.feedbackBudget,
            });
      const infra = out.score.status !== 'scored';
      const retry = infra && e.attempt <= s.infraRetries;
      return async (tx) => {
        const [cur] = await tx.select({ status: episodes.status }).from(episodes).where(eq(episodes.id, episodeId)).for('update');
        if (cur?.status !== 'running') return { skipped: cur?.status };
        await tx.delete(turns).where(eq(turns.episodeId, episodeId));
        await tx.insert(turns).values(
          out.turns.map((x) => ({
            episodeId,
            index: x.index,
            action: x.action,
            tokenIds: x.tokenIds,
            logprobs: x.logprobs,
            lossMask: x.lossMask,
            observation: x.observation,
            stdout: x.stdout,
            stderr: x.stderr,
            exitCode: x.exitCode,
            execStatus: x.execStatus,
            policyMs: x.policyMs,
            sandboxMs: x.sandboxMs,
            cpuMs: x.cpuMs,
            maxRssMb: x.maxRssMb,
            tests: x.tests,
          })),
        );
        const base = {
          policyVersionId: version.id,
          runtime: out.score.runtime,
          envHash: out.score.envHash,
          host,
          workerId: ctx.workerId,
          turnsCount: out.turns.length,
          startedAt,
          finishedAt: new Date(),
        };
        if (retry) {
          // infrastructure failure: not the policy's fault, run the slot again
          await tx
            .update(episodes)
            .set({ ...base, status: 'pending', attempt: e.attempt + 1, error: `attempt ${e.attempt}: ${infraReason(out.score)}`, endReason: 'infra' })
            .where(eq(episodes.id, episodeId));
        } else if (infra) {
          // masked out of the loss and out of its group's baseline; never scored 0
          await tx
            .update(episodes)
            .set({ ...base, status: out.score.status, endReason: 'infra', error: infraReason(out.score) })
            .where(eq(episodes.id, episodeId));
          await tx
            .update(runs)
            .set({ episodesDone: sql`${runs.episodesDone} + 1`, updatedAt: new Date() })
            .where(eq(runs.id, run.id));
        } else {
          await tx
            .insert(rewards)
            .values({
              episodeId,
              value: out.score.reward!,
              components: out.score.components,
              envHash: out.score.envHash,
              harnessVersion: out.score.harnessVersion,
              policyVersionId: version.id,
            })
            .onConflictDoNothing();
          await tx
            .update(episodes)
            .set({ ...base, status: 'scored', endReason: out.endReason })
            .where(eq(episodes.id, episodeId));
          await tx
            .update(runs)
            .set({ episodesDone: sql`${runs.episodesDone} + 1`, updatedAt: new Date() })
            .where(eq(runs.id, run.id));
          await sampleForReview(tx, episodeId);
        }
        await topUp(tx, run.id);
        return {
          status: retry ? 'retry' : out.score.status,
          reward: out.score.reward,
          turns: out.turns.length,
          policyMs: Math.round(out.policyMs),
          sandboxMs: Math.round(out.sandboxMs),
        };
      };
    },
  };

  /**
   * The learner step of one iteration: load the iteration's episodes, rewards and turns;
   * choose the batch, build its sequences, step the optimizer, save the new policy version,
   * evaluate it held-out; then commit the version, the metrics and the run's next step.
   * The choices are pure steps under ./learn (unit-tested there); this is the I/O around them.
   */
  const learnHandler: JobHandler = {
    queue: RL_QUEUES.learn,
    payload: learnPayload,
    leaseMs: rl.leaseMs(300_000),
    run: async (job, ctx) => {
      const runId = String(job.payload.runId);
      const iteration = Number(job.payload.iteration);
      const run = await loadRun(ctx.db, runId);
      if (run.currentIteration !== iteration || run.status === 'cancelled' || run.status === 'failed') return;
      const phases = jobPhases(ctx.db, run, job, s);
      await phases.started('learning', iteration);
      const t0 = performance.now();
      // load
      const eps = await ctx.db
        .select({ e: episodes, r: rewards })
        .from(episodes)
        .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
        .where(and(eq(episodes.runId, runId), eq(episodes.iteration, iteration)))
        .orderBy(asc(episodes.groupIndex), asc(episodes.sampleIndex));
      // mostly infrastructure failures: the sandboxes are broken, so fail the run with the reason rather than train on the rest
      const broken = infraFailure(
        eps.map(({ e }) => e),
        s.infraFailRate,
        iteration,
      );
      if (broken) {
        return async (tx) => {
          await tryRunTransition(tx, runId, 'fail', `system:${RL_QUEUES.learn}`, { message: broken.message, error: broken.message, data: broken.data });
          return { failed: broken.message };
        };
      }
      const current = await latestVersion(ctx.db, runId);
      if (!current) throw new Error('run has no policy version');
      const versions = await ctx.db
        .select({ id: policyVersions.id, version: policyVersions.version })
        .from(policyVersions)
        .where(eq(policyVersions.runId, runId));
      // configs are stored as created: options added since read their defaults
      const config = withLearnerDefaults(run.config);
      const batch = selectBatch(eps, { currentVersion: current.version, versionOf: new Map(versions.map((v) => [v.id, v.version])), config: run.config });
      const trainIds = batch.valid.map(({ e }) => e.id);
      const turnRows = inSlotOrder(trainIds.length ? await ctx.db.select().from(turns).where(inArray(turns.episodeId, trainIds)) : [], trainIds);
      const languageOf = new Map<string, TaskLanguage>();
      const textEpisodes = new Set<string>();
      if (run.config.maskTruncated && trainIds.length) {
        const langs = await ctx.db
          .select({ id: episodes.id, language: tasks.language, kind: tasks.kind })
          .from(episodes)
          .innerJoin(tasks, eq(tasks.id, episodes.taskId))
          .where(inArray(episodes.id, trainIds));
        for (const l of langs) {
          languageOf.set(l.id, l.language);
          if (l.kind === 'text') textEpisodes.add(l.id);
        }
      }
      const policy = await loadRunPolicyForTraining(run, current, checkpoints(ctx.db));
      // sequences: overlong masking asks the tokenizer whether a response was cut off at the budget
      // repository-task episodes train as one sequence each, their turns concatenated
      const wholeEpisodes = await repoEpisodeIds(ctx.db, trainIds);
      const { sequences, maskedOverlong } = buildSequences(
        config,
        batch.trainEpisodes,
        turnRows,
        (t) =>
          textEpisodes.has(t.episodeId)
            ? textTruncated(policy, generatedTokens(t))
            : wholeEpisodes.has(t.episodeId)
              ? agentMessageCut(agentRenderer(policy), generatedTokens(t))
              : wasTruncated(bytePolicy(run, policy, 'input/output tasks'), languageOf.get(t.episodeId)!, generatedTokens(t)),
        wholeEpisodes,
      );
      let report: Awaited<ReturnType<typeof learnerUpdates>> | null = null;
      let klRewardPenalty = 0;
      // learning rate 0 is "no update" (a control arm): the weights stay v0's, so skip the learner
      if (sequences.length && run.config.learningRate > 0) {
        let refLogprobs: number[][] | undefined;
        if (needsReference(config)) {
          const v0 = await versionRow(ctx.db, runId, 0);
          if (!v0) throw new PermanentJobError(`run ${runId} has no reference policy (version 0)`);
          const ref = await referenceParams(run, v0, checkpoints(ctx.db), policy);
          // at the sampling temperature, like the stored logprobs and the training graph
          refLogprobs = (
            await scoreInChunks(
              policy,
              sequences.map((q) => q.tokens),
              { params: ref.params, temperature: config.temperature },
            )
          ).map((x) => x.logprobs);
          await ref.release();
        }
        const values =
          run.config.algorithm === 'ppo'
            ? (
                await scoreInChunks(
                  policy,
                  sequences.map((q) => q.tokens),
                )
              ).map((x) => {
                if (!x.values)
                  throw new PermanentJobError(`run ${runId} trains with PPO, but its policy has no value head (a checkpoint from before PPO was chosen?)`);
                return x.values;
              })
            : undefined;
        const built = buildLearnerBatch(config, { episodes: batch.trainEpisodes, turns: sequences, refLogprobs, values });
        klRewardPenalty = built.klRewardPenalty;
        if (built.sequences.length)
          report = await learnerUpdates(policy, built.sequences, config, iteration, {
            normTokens: wholeEpisodes.size ? agentTokenBudget(config, policy) : s.maxNewTokens,
          });
      }
      const updateS = (performance.now() - t0) / 1000;
      const next = iteration + 1;
      const saved = await publishCheckpoint(checkpoints(ctx.db).store, policy, runId, next, deps.dataDir);
      const withK = s.passAtK > 0 && (next >= run.config.iterations || (s.passAtKEvery > 0 && next % s.passAtKEvery === 0));
      // No update → v0's weights, and the evaluation is greedy / fixed-seed: v0's numbers stand.
      const ev =
        run.config.learningRate === 0
          ? await recordedHeldout(ctx.db, runId, withK ? s.passAtK : 0)
          : await phases.heldout(`policy v${next}`, () => heldoutEval(ctx.db, sandboxes(ctx.db), policy, run, s, { k: withK ? s.passAtK : 0 }), iteration);
      await policy.release();
      // metrics of the iteration
      const finished = finishedEpisodes(eps).map(({ e }) => e.id);
      const epTurns = finished.length
        ? await ctx.db
            .select({ episodeId: turns.episodeId, policyMs: turns.policyMs, sandboxMs: turns.sandboxMs, lossMask: turns.lossMask })
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
      const skippedEvent = report && skippedStepsEvent(iteration, report);
      // write
      return async (tx) => {
        const [locked] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
        if (!locked || locked.currentIteration !== iteration) return { skipped: true };
        await tx
          .insert(policyVersions)
          .values({
            runId,
            version: next,
            parentId: current.id,
            sha256: saved.sha256,
            bytes: saved.size,
            executionProvider: report?.provider ?? policy.provider,
            metrics,
          })
          .onConflictDoNothing();
        await tx.insert(metricSamples).values([
          // non-finite values (a skipped step's loss) are stored as NaN/Infinity, not hidden as 0
          ...Object.entries(metrics).map(([name, value]) => rlSample(runId, name as RlIterationMetric, next, value)),
          ...[...failures].map(([status, n]) => rlSample(runId, 'sandbox_failures', next, n, { status })),
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
          done &&
          (await tryRunTransition(tx, runId, 'complete', `system:${RL_QUEUES.learn}`, { message: trained, data: { iteration, version: next, ...ran } }));
        if (!completed) await runEvent(tx, runId, 'iteration', trained, { iteration, version: next, ...ran });
        if (skippedEvent) await runEvent(tx, runId, skippedEvent.type, skippedEvent.message, skippedEvent.data);
        if (!done) await topUp(tx, runId);
        if (!done) await samplingStarted(tx, locked, next, `system:${RL_QUEUES.learn}`);
        return { version: next, rewardMean: metrics.reward_mean, heldoutPassAt1: ev.passAt1 };
      };
    },
    close: async () => {
      await releasePolicies();
      await manager?.close();
      await store?.close();
      store = undefined;
      manager = undefined;
    },
  };

  return [advanceHandler, episodeHandler, learnHandler].map(failRunOnGiveUp);
}
