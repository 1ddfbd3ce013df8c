import { createHash } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { episodes, reviews, rewards, runs, turns } from '@/db/schema';
import type { DbOrTx } from '@/server/audit/service';
import { reviewConfig } from '@/core/run-config';
import { markReward } from './verdicts';

/** A stable draw in [0, 1) per (episode, purpose): the same episode always gets the same answer. */
function draw(episodeId: string, purpose: string): number {
  return createHash('sha256').update(`${episodeId}:${purpose}`).digest().readUInt32BE(0) / 2 ** 32;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.floor(q * (s.length - 1))))]!;
};

/** Boundary cases are common (partial passes): a share of them. Anomalies are rare: all of them. */
export const BOUNDARY_SHARE = 0.25;

export type SampleDecision = { sampled: boolean; reasons: string[]; slots: number };

/**
 * Decide, as an episode is scored, whether it enters the review queue and why. Strata:
 * held (a grade the grader held for review: always), boundary (partial pass, near a decision threshold, re-run disagreement), anomaly (far
 * from its task's or group's mean, a jump in the task's reward, unusually short or long
 * trajectory, a new environment hash) and uniform; plus a top-up that keeps every run at
 * or above its review rate (never below 5%). Writes the review row(s) when sampled.
 */
export async function sampleForReview(tx: DbOrTx, episodeId: string): Promise<SampleDecision> {
  const [ep] = await tx
    .select({ e: episodes, value: rewards.value, components: rewards.components, envHash: rewards.envHash, config: runs.config })
    .from(episodes)
    .innerJoin(rewards, eq(rewards.episodeId, episodes.id))
    .innerJoin(runs, eq(runs.id, episodes.runId))
    .where(eq(episodes.id, episodeId));
  if (!ep) return { sampled: false, reasons: [], slots: 0 };
  const existing = await tx.select({ id: reviews.id }).from(reviews).where(eq(reviews.episodeId, episodeId));
  if (existing.length) return { sampled: true, reasons: ['already sampled'], slots: existing.length };
  const cfg = reviewConfig.parse(ep.config.review ?? {});
  const r = ep.value;
  const c = ep.components;
  const reasons: string[] = [];

  // Held for review: the grader saw something that could be tampering or honest code (RepoGrade.suspect).
  if (c.suspect === 1) reasons.push('suspect:held_for_review');

  // Boundary cases.
  const boundary: string[] = [];
  // input/output rewards carry passRate, repository rewards the FAIL_TO_PASS fraction f2p
  const partial = c.passRate ?? c.f2p;
  if (partial !== undefined && partial > 0 && partial < 1) boundary.push('boundary:partial_pass');
  if (cfg.thresholds.some((t) => Math.abs(r - t) <= 0.05)) boundary.push('boundary:near_threshold');
  if (c.rerunDisagrees === 1) boundary.push('boundary:rerun_disagrees');
  if (boundary.length && draw(episodeId, 'boundary') < BOUNDARY_SHARE) reasons.push(...boundary);

  // Anomalies, against the run's other scored episodes.
  const others = await tx
    .select({
      taskId: episodes.taskId,
      iteration: episodes.iteration,
      group: episodes.groupIndex,
      value: rewards.value,
      envHash: rewards.envHash,
      chars: sql<number>`coalesce((select sum(length(${turns.action})) from ${turns} where ${turns.episodeId} = ${episodes.id}), 0)::int`,
    })
    .from(episodes)
    .innerJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(and(eq(episodes.runId, ep.e.runId), sql`${episodes.id} <> ${episodeId}`));
  const sameTask = others.filter((o) => o.taskId === ep.e.taskId).map((o) => o.value);
  if (sameTask.length >= 3) {
    const m = mean(sameTask),
      s = std(sameTask);
    if ((s > 0 && Math.abs(r - m) > 2 * s) || (s === 0 && Math.abs(r - m) > 0.25)) reasons.push('anomaly:task_outlier');
    const prev = others.filter((o) => o.taskId === ep.e.taskId && o.iteration === ep.e.iteration - 1).map((o) => o.value);
    if (prev.length && Math.abs(r - mean(prev)) > 0.5) reasons.push('anomaly:task_jump');
  }
  const group = others.filter((o) => o.iteration === ep.e.iteration && o.group === ep.e.groupIndex && o.taskId === ep.e.taskId).map((o) => o.value);
  if (group.length >= 3) {
    const m = mean(group),
      s = std(group);
    if ((s > 0 && Math.abs(r - m) > 2 * s) || (s === 0 && Math.abs(r - m) > 0.25)) reasons.push('anomaly:group_outlier');
  }
  if (others.length >= 20) {
    const [{ chars } = { chars: 0 }] = await tx
      .select({ chars: sql<number>`coalesce(sum(length(${turns.action})), 0)::int` })
      .from(turns)
      .where(eq(turns.episodeId, episodeId));
    const lengths = others.map((o) => o.chars);
    if (chars < quantile(lengths, 0.02)) reasons.push('anomaly:short_trajectory');
    else if (chars > quantile(lengths, 0.98)) reasons.push('anomaly:long_trajectory');
  }
  // a hash none of the run's other scored episodes used (the run's first episode has nothing to differ from)
  if (others.length > 0 && !others.some((o) => o.envHash === ep.envHash)) reasons.push('anomaly:new_env_hash');

  // Uniform share.
  if (draw(episodeId, 'uniform') < cfg.rate) reasons.push('uniform');

  // Coverage: never let the run fall below its rate.
  if (reasons.length === 0) {
    const [{ sampled } = { sampled: 0 }] = await tx
      .select({ sampled: sql<number>`count(distinct ${reviews.episodeId})::int` })
      .from(reviews)
      .where(eq(reviews.runId, ep.e.runId));
    const scored = others.length + 1;
    if (sampled < Math.ceil(cfg.rate * scored)) reasons.push('uniform:coverage');
  }
  if (reasons.length === 0) return { sampled: false, reasons, slots: 0 };
  // Identical items are not reviewed twice: an episode whose task and actions equal an already
  // sampled one's (an RL arm and its control share seed and v0 weights, so their early episodes
  // are byte-identical) becomes its twin, carrying its verdict (./verdicts.ts).
  const [hashed] = await tx.execute<{ h: string }>(sql`
    select encode(sha256(convert_to(${ep.e.taskId ?? ''} || E'\x1d' || coalesce(string_agg(${turns.action}, E'\x1e' order by ${turns.index}), ''), 'UTF8')), 'hex') as h
    from ${turns} where ${turns.episodeId} = ${episodeId}`);
  const outputHash = hashed?.h ?? null;
  const [original] = outputHash
    ? await tx
        .select()
        .from(reviews)
        .where(and(eq(reviews.outputHash, outputHash), eq(reviews.slot, 0), isNull(reviews.twinOf), sql`${reviews.episodeId} <> ${episodeId}`))
        .orderBy(reviews.createdAt)
        .limit(1)
    : [];
  if (original) {
    await tx
      .insert(reviews)
      .values({
        episodeId,
        runId: ep.e.runId,
        slot: 0,
        sampleReason: [...reasons, 'twin'].join(','),
        outputHash,
        twinOf: original.id,
        verdict: original.verdict,
        correctedReward: original.correctedReward,
        submittedAt: original.submittedAt,
      })
      .onConflictDoNothing();
    if (original.verdict) await markReward(tx, episodeId);
    return { sampled: true, reasons: [...reasons, 'twin'], slots: 1 };
  }
  const slots = draw(episodeId, 'double') < cfg.doubleReviewShare ? 2 : 1;
  await tx
    .insert(reviews)
    .values(Array.from({ length: slots }, (_, slot) => ({ episodeId, runId: ep.e.runId, slot, sampleReason: reasons.join(','), outputHash })))
    .onConflictDoNothing();
  return { sampled: true, reasons, slots };
}
