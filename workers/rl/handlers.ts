import fs from 'node:fs/promises';
import path from 'node:path';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/runtime';
import { episodes, metricSamples, policyVersions, rewards, runs, tasks, turns } from '@/db/schema';
import { sampleForReview } from '@/server/reviews/sampler';
import type { RunConfig } from '@/server/runs/run-config';
import type { TaskTests } from '@/server/tasks/formats';
import { PermanentJobError, type JobHandler } from '@/workers/jobs/handler';
import { groupHasSignal } from '@/workers/policy/advantages';
import { Policy } from '@/workers/policy/policy';
import { checkIsolationPolicy } from '@/workers/sandbox/isolation';
import { SandboxManager } from '@/workers/sandbox/manager';
import { runEpisode, wasTruncated } from './episode';
import { heldoutEval, recordedHeldout } from './evaluate';
import { latestVersion, loadRunPolicy, loadRunPolicyForTraining, policyDir, releasePolicies, versionRow } from './policy-store';
import { episodeSeed, prng, runEvent, shuffle, topUp } from './schedule';
import { scoringOptions } from './reward/scoring-options';
import { QUEUES, rlLeaseMs, rlSettings } from './settings';
import { failRunOnGiveUp } from './give-up';
import { buildLearnerBatch, lossConfigFor, needsReference, turnsToScore, withLearnerDefaults } from './learner-batch';
import { skippedStepsEvent, summariseSteps } from './learner-steps';
import { sftWarmStart, withOptimizer } from './sft';

let manager: SandboxManager | undefined;
const sandboxes = (db: Db) => (manager ??= new SandboxManager({ dataDir: dataDir(), db, actor: 'system:rl' }));

async function loadRun(db: Db, runId: string) {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) throw new PermanentJobError(`no run ${runId}`);
  return run;
}

const versionPath = (runId: string, v: number) => path.join(policyDir(runId), `v${String(v).padStart(6, '0')}.ckpt`);

/** Start a queued run (policy version 0, optional SFT warm start, baseline held-out eval), or top up a running one. */
export const advanceHandler: JobHandler = {
  queue: QUEUES.advance,
  leaseMs: rlLeaseMs(120_000),
  run: async (job, ctx) => {
    const runId = String(job.payload.runId);
    const run = await loadRun(ctx.db, runId);
    if (run.status === 'running') return (tx) => topUp(tx, runId);
    if (run.status !== 'queued') return;
    // a runtime the policy names but this host lacks fails the run now, never downgraded
    try {
      checkIsolationPolicy(run.config);
    } catch (err) {
      throw new PermanentJobError((err as Error).message);
    }
    const s = rlSettings();
    let v0 = await latestVersion(ctx.db, runId);
    let created: { sha256: string; provider: string; sft: unknown; initPassAt1: number | null; passAt1: number; heldout: number; passAtK: number | null; k: number } | undefined;
    if (!v0) {
      let policy = Policy.create({ seed: run.config.seed, optim: { lr: s.sftLearningRate, warmupSteps: Math.min(10, s.sftSteps), totalSteps: Math.max(1, s.sftSteps) } });
      // held-out pass@1 of the random initialisation, so the curve shows what the warm start adds
      const init = s.sftSteps > 0 ? await heldoutEval(ctx.db, sandboxes(ctx.db), policy, run) : null;
      const sft = s.sftSteps > 0 ? { ...(await sftWarmStart(ctx.db, policy, run.suiteId!, s.sftSteps, run.config.seed)), heldoutPassAt1Before: init?.passAt1 } : null;
      // RL gets its own learning-rate phase: the run's learning rate, constant.
      // (A control arm, learning rate 0, never steps: it keeps the warm start's optimizer.)
      if (run.config.learningRate > 0) policy = await withOptimizer(policy, { lr: run.config.learningRate, warmupSteps: 0, totalSteps: Math.max(1, run.config.iterations), minLrRatio: 1 });
      await fs.mkdir(policyDir(runId), { recursive: true });
      const saved = await policy.save(versionPath(runId, 0));
      const ev = await heldoutEval(ctx.db, sandboxes(ctx.db), policy, run, { k: s.passAtK });
      created = { sha256: saved.sha256, provider: policy.provider, sft, initPassAt1: init?.passAt1 ?? null, passAt1: ev.passAt1, heldout: ev.tasks, passAtK: ev.passAtK, k: ev.k };
      await policy.release();
    }
    return async (tx) => {
      const [locked] = await tx.select({ status: runs.status }).from(runs).where(eq(runs.id, runId)).for('update');
      if (locked?.status !== 'queued') return;
      if (created) {
        await tx.insert(policyVersions).values({ runId, version: 0, checkpointPath: versionPath(runId, 0), sha256: created.sha256, executionProvider: created.provider, isReference: true, metrics: { heldout_pass_at_1: created.passAt1 } }).onConflictDoNothing();
        await tx.insert(metricSamples).values({ runId, source: 'rl', name: 'heldout_pass_at_1', step: 0, value: created.passAt1, labels: { tasks: String(created.heldout) } });
        if (created.initPassAt1 != null) await tx.insert(metricSamples).values({ runId, source: 'rl', name: 'heldout_pass_at_1_before_sft', step: 0, value: created.initPassAt1 });
        if (created.passAtK != null) await tx.insert(metricSamples).values({ runId, source: 'rl', name: 'heldout_pass_at_k', step: 0, value: created.passAtK, labels: { k: String(created.k) } });
        v0 = await latestVersion(tx, runId);
      }
      await tx.update(runs).set({ status: 'running', startedAt: sql`coalesce(${runs.startedAt}, now())`, updatedAt: new Date() }).where(eq(runs.id, runId));
      await runEvent(tx, runId, 'started', `training started from policy version ${v0?.version ?? 0}`, { sft: created?.sft ?? null, heldoutPassAt1: created?.passAt1 });
      // status change fires the wake-up trigger too; topUp is idempotent
      await topUp(tx, runId);
    };
  },
};

/** What an infrastructure failure was, for the episode row and the operator reading it. */
const infraReason = (score: { status: string; harness: { exec: { error?: string; stderr: string } } }) =>
  `${score.status}: ${(score.harness.exec.error || score.harness.exec.stderr || 'no detail').slice(0, 480)}`;

/** One multi-turn episode; its turns, reward and the run's next step commit with the job. */
export const episodeHandler: JobHandler = {
  queue: QUEUES.episode,
  leaseMs: rlLeaseMs(60_000),
  run: async (job, ctx) => {
    const episodeId = String(job.payload.episodeId);
    const [row] = await ctx.db.select({ e: episodes, t: tasks, run: runs }).from(episodes)
      .innerJoin(runs, eq(runs.id, episodes.runId)).innerJoin(tasks, eq(tasks.id, episodes.taskId)).where(eq(episodes.id, episodeId));
    if (!row) throw new PermanentJobError(`no episode ${episodeId}`);
    if (row.e.status !== 'running') return; // already finished (or reset by a cancel)
    const { e, t, run } = row;
    if (run.status === 'cancelled' || run.status === 'failed' || run.status === 'completed') {
      // the run ended after this episode was dispatched: don't spend a sandbox on it
      return async (tx) => {
        await tx.update(episodes).set({ status: 'cancelled', endReason: `run ${run.status}` }).where(and(eq(episodes.id, episodeId), eq(episodes.status, 'running')));
      };
    }
    const s = rlSettings();
    const version = await latestVersion(ctx.db, run.id);
    if (!version) throw new Error('run has no policy version yet');
    // A quarantined environment is refused by the sandbox manager (status env_mismatch): the
    // episode is then an infrastructure failure, masked, never scored 0.
    const policy = await loadRunPolicy(run, version);
    const startedAt = new Date();
    const out = await runEpisode({
      policy, manager: sandboxes(ctx.db), scoring: scoringOptions(run, { ...t, tests: t.tests as TaskTests }, s),
      task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests: t.tests as TaskTests },
      maxTurns: run.config.maxTurns, seed: episodeSeed(run.config.seed, e.iteration, e.groupIndex, e.sampleIndex),
      temperature: run.config.temperature, topP: run.config.topP, maxNewTokens: s.maxNewTokens, feedbackBudget: s.feedbackBudget,
      context: { runId: run.id, episodeId }, signal: ctx.signal,
    });
    const infra = out.score.status !== 'scored';
    const retry = infra && e.attempt <= s.infraRetries;
    return async (tx) => {
      const [cur] = await tx.select({ status: episodes.status }).from(episodes).where(eq(episodes.id, episodeId)).for('update');
      if (cur?.status !== 'running') return { skipped: cur?.status };
      await tx.delete(turns).where(eq(turns.episodeId, episodeId));
      await tx.insert(turns).values(out.turns.map((x) => ({
        episodeId, index: x.index, action: x.action, tokenIds: x.tokenIds, logprobs: x.logprobs, lossMask: x.lossMask,
        observation: x.observation, stdout: x.stdout, stderr: x.stderr, exitCode: x.exitCode, execStatus: x.execStatus,
        policyMs: x.policyMs, sandboxMs: x.sandboxMs, cpuMs: x.cpuMs, maxRssMb: x.maxRssMb,
      })));
      const base = { policyVersionId: version.id, runtime: out.score.runtime, envHash: out.score.envHash, turnsCount: out.turns.length, startedAt, finishedAt: new Date() };
      if (retry) {
        // infrastructure failure: not the policy's fault, run the slot again
        await tx.update(episodes).set({ ...base, status: 'pending', attempt: e.attempt + 1, error: `attempt ${e.attempt}: ${infraReason(out.score)}`, endReason: 'infra' }).where(eq(episodes.id, episodeId));
      } else if (infra) {
        // masked out of the loss and out of its group's baseline; never scored 0
        await tx.update(episodes).set({ ...base, status: out.score.status, endReason: 'infra', error: infraReason(out.score) }).where(eq(episodes.id, episodeId));
        await tx.update(runs).set({ episodesDone: sql`${runs.episodesDone} + 1`, updatedAt: new Date() }).where(eq(runs.id, run.id));
      } else {
        await tx.insert(rewards).values({ episodeId, value: out.score.reward!, components: out.score.components, envHash: out.score.envHash, harnessVersion: out.score.harnessVersion, policyVersionId: version.id }).onConflictDoNothing();
        await tx.update(episodes).set({ ...base, status: 'scored', endReason: out.endReason }).where(eq(episodes.id, episodeId));
        await tx.update(runs).set({ episodesDone: sql`${runs.episodesDone} + 1`, updatedAt: new Date() }).where(eq(runs.id, run.id));
        await sampleForReview(tx, episodeId);
      }
      await topUp(tx, run.id);
      return { status: retry ? 'retry' : out.score.status, reward: out.score.reward, turns: out.turns.length, policyMs: Math.round(out.policyMs), sandboxMs: Math.round(out.sandboxMs) };
    };
  },
};

/**
 * The iteration's optimizer steps: `updateEpochs` passes over the batch, each split into
 * `miniBatches` seeded-shuffled minibatches (one AdamW step each, micro-batches of 16
 * accumulated inside). The first step is on-policy (ratio 1); later ones are where the
 * clip ratios bite. Reports the mean of each metric over the steps.
 */
async function learnerUpdates(policy: Policy, batch: Record<string, unknown>[], config: RunConfig, iteration: number) {
  const rand = prng(config.seed * 104_729 + iteration);
  const loss = lossConfigFor(config, { normTokens: rlSettings().maxNewTokens });
  const reports: Awaited<ReturnType<Policy['trainStep']>>[] = [];
  for (let epoch = 0; epoch < config.updateEpochs; epoch++) {
    const order = shuffle(batch.map((_, i) => i), rand);
    const parts = Math.min(config.miniBatches, order.length);
    for (let m = 0; m < parts; m++) {
      const part = order.filter((_, i) => i % parts === m).map((i) => batch[i]!);
      reports.push(await policy.trainStep(part as never, loss, { microBatchSize: 16 }));
    }
  }
  return { ...summariseSteps(reports), provider: reports.at(-1)!.provider, sequences: batch.length };
}

const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
const std = (a: number[]) => { const m = mean(a); return Math.sqrt(mean(a.map((x) => (x - m) ** 2))); };

/** The learner step of one iteration: advantages, one optimizer step, new policy version, metrics. */
export const learnHandler: JobHandler = {
  queue: QUEUES.learn,
  leaseMs: rlLeaseMs(300_000),
  run: async (job, ctx) => {
    const runId = String(job.payload.runId);
    const iteration = Number(job.payload.iteration);
    const run = await loadRun(ctx.db, runId);
    if (run.currentIteration !== iteration || run.status === 'cancelled' || run.status === 'failed') return;
    const s = rlSettings();
    const t0 = performance.now();
    const eps = await ctx.db.select({ e: episodes, r: rewards }).from(episodes).leftJoin(rewards, eq(rewards.episodeId, episodes.id))
      .where(and(eq(episodes.runId, runId), eq(episodes.iteration, iteration))).orderBy(asc(episodes.groupIndex), asc(episodes.sampleIndex));
    const current = await latestVersion(ctx.db, runId);
    if (!current) throw new Error('run has no policy version');
    const versions = await ctx.db.select({ id: policyVersions.id, version: policyVersions.version }).from(policyVersions).where(eq(policyVersions.runId, runId));
    const versionOf = new Map(versions.map((v) => [v.id, v.version]));
    const disputedMode = run.config.review.disputed;
    // which episodes train: scored, within the staleness bound (older ones are dropped), disputed per config
    const valid = eps.filter(({ e, r }) => {
      if (e.status !== 'scored' || !r) return false;
      if (current.version - (versionOf.get(e.policyVersionId ?? '') ?? -1) > run.config.maxStaleness) return false;
      if (r.disputed && disputedMode === 'exclude') return false;
      return true;
    });
    const rewardOf = ({ r }: (typeof eps)[number]) => (r!.disputed && disputedMode === 'replace' && r!.correctedValue != null ? r!.correctedValue : r!.value);
    const rs = valid.map(rewardOf);
    // configs are stored as created: options added since read their defaults
    const config = withLearnerDefaults(run.config);
    const trainEpisodes = valid.map(({ e }, i) => ({ id: e.id, reward: rs[i]!, group: e.groupIndex }));
    const groups = new Map<number, number[]>();
    valid.forEach(({ e }, i) => groups.set(e.groupIndex, [...(groups.get(e.groupIndex) ?? []), rs[i]!]));
    const zeroVar = [...groups.values()].filter((g) => g.length > 1 && !groupHasSignal(g)).length;
    // In slot order (group, sample, turn), not by episode id: ids are random uuids, and the
    // batch order decides the minibatches, so a fixed seed would not replay the training.
    const slotOf = new Map(valid.map(({ e }, i) => [e.id, i]));
    const turnRows = (valid.length ? await ctx.db.select().from(turns).where(inArray(turns.episodeId, valid.map(({ e }) => e.id))).orderBy(asc(turns.episodeId), asc(turns.index)) : [])
      .sort((a, b) => slotOf.get(a.episodeId)! - slotOf.get(b.episodeId)! || a.index - b.index);
    const policy = await loadRunPolicyForTraining(run, current);
    const algo = run.config.algorithm;
    const languageOf = new Map<string, 'python' | 'javascript'>();
    if (run.config.maskTruncated && valid.length) {
      const langs = await ctx.db.select({ id: episodes.id, language: tasks.language }).from(episodes).innerJoin(tasks, eq(tasks.id, episodes.taskId))
        .where(inArray(episodes.id, valid.map(({ e }) => e.id)));
      for (const l of langs) languageOf.set(l.id, l.language);
    }
    // overlong masking: a response cut off at the token budget is left out of the loss
    const overlong = (t: (typeof turnRows)[number]) =>
      run.config.maskTruncated && wasTruncated(policy, languageOf.get(t.episodeId)!, t.tokenIds!.filter((_, i) => t.lossMask![i] === 1));
    const maskedOverlong = turnRows.filter((t) => t.tokenIds && overlong(t)).length;
    let seqs = turnsToScore(config, trainEpisodes, turnRows
      .filter((t) => t.tokenIds && t.tokenIds.length >= 2 && t.lossMask!.some((m) => m === 1) && !overlong(t))
      .map((t) => ({ episodeId: t.episodeId, tokens: t.tokenIds!, lossMask: t.lossMask!, oldLogprobs: t.logprobs! })));
    let report: Awaited<ReturnType<typeof learnerUpdates>> | null = null;
    let klRewardPenalty = 0;
    // learning rate 0 is "no update" (a control arm): the weights stay v0's, so skip the learner
    if (seqs.length && run.config.learningRate > 0) {
      let refLogprobs: number[][] | undefined;
      if (needsReference(config)) {
        const v0 = await versionRow(ctx.db, runId, 0);
        if (!v0) throw new PermanentJobError(`run ${runId} has no reference policy (version 0)`);
        const ref = await loadRunPolicyForTraining(run, v0);
        // at the sampling temperature, like the stored logprobs and the training graph
        refLogprobs = (await policy.score(seqs.map((q) => q.tokens), { params: ref.params, temperature: config.temperature })).map((x) => x.logprobs);
        await ref.release();
      }
      const values = algo === 'ppo' ? (await policy.score(seqs.map((q) => q.tokens))).map((x) => x.values) : undefined;
      const built = buildLearnerBatch(config, { episodes: trainEpisodes, turns: seqs, refLogprobs, values });
      klRewardPenalty = built.klRewardPenalty;
      if (built.sequences.length) report = await learnerUpdates(policy, built.sequences, config, iteration);
    }
    const updateS = (performance.now() - t0) / 1000;
    const next = iteration + 1;
    await fs.mkdir(policyDir(runId), { recursive: true });
    const saved = await policy.save(versionPath(runId, next));
    const withK = s.passAtK > 0 && (next >= run.config.iterations || (s.passAtKEvery > 0 && next % s.passAtKEvery === 0));
    // No update → v0's weights, and the evaluation is greedy / fixed-seed: v0's numbers stand.
    const ev = run.config.learningRate === 0
      ? await recordedHeldout(ctx.db, runId, withK ? s.passAtK : 0)
      : await heldoutEval(ctx.db, sandboxes(ctx.db), policy, run, { k: withK ? s.passAtK : 0 });
    await policy.release();
    seqs = [];
    // metrics of the iteration
    const all = eps.filter(({ e }) => e.status !== 'pending' && e.status !== 'running');
    const infra = all.filter(({ e }) => e.status === 'sandbox_error' || e.status === 'env_mismatch' || e.status === 'preempted');
    const epTurns = await ctx.db.select({ episodeId: turns.episodeId, policyMs: turns.policyMs, sandboxMs: turns.sandboxMs, tokenIds: turns.tokenIds, lossMask: turns.lossMask })
      .from(turns).where(inArray(turns.episodeId, all.length ? all.map(({ e }) => e.id) : ['00000000-0000-0000-0000-000000000000']));
    const policyMs = epTurns.reduce((a, t) => a + (t.policyMs ?? 0), 0);
    const sandboxMs = epTurns.reduce((a, t) => a + (t.sandboxMs ?? 0), 0);
    const genTokens = epTurns.reduce((a, t) => a + (t.lossMask ?? []).reduce((x, y) => x + y, 0), 0);
    const starts = all.map(({ e }) => e.startedAt?.getTime() ?? Date.now());
    const epTimes = all.map(({ e }) => (e.finishedAt?.getTime() ?? 0) - (e.startedAt?.getTime() ?? 0));
    const iterS = (Date.now() - Math.min(...starts, Date.now())) / 1000;
    const metrics: Record<string, number> = {
      reward_mean: mean(rs), reward_std: std(rs), reward_min: rs.length ? Math.min(...rs) : 0, reward_max: rs.length ? Math.max(...rs) : 0,
      heldout_pass_at_1: ev.passAt1,
      kl: report?.kl ?? 0, entropy: report?.entropy ?? 0, clip_fraction: report?.clipFraction ?? 0, loss: report?.loss ?? 0, grad_norm: report?.gradNorm ?? 0,
      response_length: epTurns.length ? genTokens / epTurns.length : 0,
      turns_per_episode: all.length ? epTurns.length / all.length : 0,
      episode_time_ms: mean(epTimes),
      sandbox_time_share: policyMs + sandboxMs > 0 ? sandboxMs / (policyMs + sandboxMs) : 0,
      tokens_per_s: policyMs > 0 ? genTokens / (policyMs / 1000) : 0,
      iteration_time_s: iterS, update_time_s: updateS,
      infra_failed_rate: all.length ? infra.length / all.length : 0,
      zero_variance_group_share: groups.size ? zeroVar / groups.size : 0,
      pass_rate: mean(valid.map(({ r }) => r!.components.passRate ?? 0)),
      style: mean(valid.map(({ r }) => r!.components.style ?? 0)),
      efficiency: mean(valid.map(({ r }) => r!.components.efficiency ?? 0)),
      trained_sequences: report?.sequences ?? 0,
      optimizer_steps: report?.steps ?? 0,
      overlong_masked_turns: maskedOverlong,
      dual_clip_fraction: report?.dualClipFraction ?? 0,
      skipped_updates: report?.skipped.length ?? 0,
      kl_reward_penalty: klRewardPenalty,
      // only when a step ran: its first step should see exactly the stored logprobs
      ...(report ? { logprob_mismatch: report.logprobMismatch } : {}),
    };
    const skippedEvent = report && skippedStepsEvent(iteration, report);
    const failures = new Map<string, number>();
    for (const { e } of infra) failures.set(e.status, (failures.get(e.status) ?? 0) + 1);
    return async (tx) => {
      const [locked] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
      if (!locked || locked.currentIteration !== iteration) return { skipped: true };
      await tx.insert(policyVersions).values({ runId, version: next, parentId: current.id, checkpointPath: saved.path, sha256: saved.sha256, executionProvider: report?.provider ?? policy.provider, metrics }).onConflictDoNothing();
      await tx.insert(metricSamples).values([
        // non-finite values (a skipped step's loss) are stored as NaN/Infinity, not hidden as 0
        ...Object.entries(metrics).map(([name, value]) => ({ runId, source: 'rl', name, step: next, value })),
        ...[...failures].map(([status, n]) => ({ runId, source: 'rl', name: 'sandbox_failures', step: next, value: n, labels: { status } })),
        ...(ev.passAtK != null ? [{ runId, source: 'rl', name: 'heldout_pass_at_k', step: next, value: ev.passAtK, labels: { k: String(ev.k) } }] : []),
      ]);
      const done = next >= locked.config.iterations;
      await tx.update(runs).set({
        currentIteration: next, lastRewardMean: metrics.reward_mean, updatedAt: new Date(),
        ...(done && locked.status === 'running' ? { status: 'completed' as const, finishedAt: new Date() } : {}),
      }).where(eq(runs.id, runId));
      await runEvent(tx, runId, done ? 'completed' : 'iteration', `iteration ${iteration} trained: reward ${metrics.reward_mean!.toFixed(3)}, held-out pass@1 ${ev.passAt1.toFixed(3)}, policy v${next}`, { iteration, version: next });
      if (skippedEvent) await runEvent(tx, runId, skippedEvent.type, skippedEvent.message, skippedEvent.data);
      if (!done) await topUp(tx, runId);
      return { version: next, rewardMean: metrics.reward_mean, heldoutPassAt1: ev.passAt1 };
    };
  },
  close: async () => {
    await releasePolicies();
    await manager?.close();
    manager = undefined;
  },
};

export const rlHandlers: JobHandler[] = [advanceHandler, episodeHandler, learnHandler].map(failRunOnGiveUp);
