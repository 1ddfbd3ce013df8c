import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { diagnoses, environments, reviewEvents, reviews, rewards } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { JOB_QUEUES } from '@/core/queues';
import { must } from '@/core/must';
import { enqueueJob } from '@/server/queue';
import type { Verdict } from './kappa';

/** Disputed verdicts cluster on an environment hash when at least this many, and this share, are disputed. */
export const FLAG_MIN_DISPUTED = 3;
export const FLAG_MIN_SHARE = 0.3;

export type VerdictInput = { reviewId: string; verdict: Verdict; correctedReward?: number | null; note?: string | null };

const disputed = (v: Verdict) => v === 'false_negative' || v === 'false_positive';

/**
 * Record (or edit) a verdict. The reviewer must hold the claim, or own the verdict when
 * editing. A disputed verdict marks the reward, opens a diagnosis (re-runs on the baseline
 * and the scored environment), and may flag the environment. Everything is audited and
 * every version kept in review_events.
 */
export async function submitVerdict(db: Db, input: VerdictInput, reviewer: { id: string; actor: string }) {
  return db.transaction(async (tx) => {
    const [rev] = await tx.select().from(reviews).where(eq(reviews.id, input.reviewId)).for('update');
    if (!rev) throw new DomainError('NOT_FOUND', `no review item ${input.reviewId}`);
    if (rev.reviewerId !== reviewer.id) throw new DomainError('CONFLICT', 'claim this item first (your claim may have expired and gone to someone else)');
    if (rev.verdict === null && rev.claimExpiresAt && rev.claimExpiresAt < new Date()) {
      throw new DomainError('CONFLICT', 'your claim on this item expired; claim it again');
    }
    if (input.verdict === 'correct' && input.correctedReward != null) {
      throw new DomainError('BAD_REQUEST', 'a "correct" verdict keeps the automatic reward; drop the corrected reward or choose another verdict');
    }
    const editing = rev.verdict !== null;
    const [updated] = await tx
      .update(reviews)
      .set({
        verdict: input.verdict,
        correctedReward: input.correctedReward ?? null,
        note: input.note ?? null,
        submittedAt: new Date(),
        claimExpiresAt: null,
      })
      .where(eq(reviews.id, rev.id))
      .returning();
    await tx
      .insert(reviewEvents)
      .values({ reviewId: rev.id, actor: reviewer.actor, verdict: input.verdict, correctedReward: input.correctedReward ?? null, note: input.note ?? null });
    await appendAudit(tx, {
      actor: reviewer.actor,
      action: editing ? 'review.verdict_edit' : 'review.verdict',
      targetType: 'review',
      targetId: rev.id,
      details: { episodeId: rev.episodeId, verdict: input.verdict, correctedReward: input.correctedReward ?? null, previous: rev.verdict },
    });
    await markReward(tx, rev.episodeId);
    // its twins (identical episodes, not reviewed again: ./sampler.ts) carry the verdict
    const twins = await tx
      .update(reviews)
      .set({ verdict: input.verdict, correctedReward: input.correctedReward ?? null, submittedAt: new Date() })
      .where(eq(reviews.twinOf, rev.id))
      .returning({ episodeId: reviews.episodeId });
    for (const t of twins) await markReward(tx, t.episodeId);
    let diagnosisId: string | null = null;
    if (disputed(input.verdict)) {
      const [existing] = await tx.select({ id: diagnoses.id }).from(diagnoses).where(eq(diagnoses.reviewId, rev.id));
      if (!existing) {
        const [d] = await tx.insert(diagnoses).values({ reviewId: rev.id, episodeId: rev.episodeId }).returning({ id: diagnoses.id });
        diagnosisId = d!.id;
        await enqueueJob(tx, JOB_QUEUES.reviewDiagnose, { diagnosisId }, { idempotencyKey: diagnosisId, runId: rev.runId, priority: 50 });
      } else diagnosisId = existing.id;
    }
    const flagged = await flagEnvironmentIfClustered(tx, rev.episodeId);
    return { review: updated!, diagnosisId, flaggedEnvironment: flagged };
  });
}

/** The reward's dispute mark follows its reviews' latest verdicts (a later "correct" clears it). */
export async function markReward(tx: DbOrTx, episodeId: string) {
  const verdicts = await tx
    .select({ verdict: reviews.verdict, corrected: reviews.correctedReward })
    .from(reviews)
    .where(and(eq(reviews.episodeId, episodeId), sql`${reviews.verdict} is not null`));
  const d = verdicts.find((v) => v.verdict && disputed(v.verdict));
  await tx
    .update(rewards)
    .set({ disputed: d?.verdict ?? null, correctedValue: d?.corrected ?? null })
    .where(eq(rewards.episodeId, episodeId));
}

/** Flag the environment when disputed verdicts cluster on its hash. Returns the flagged name, if any. */
async function flagEnvironmentIfClustered(tx: DbOrTx, episodeId: string): Promise<string | null> {
  const [reward] = await tx.select({ envHash: rewards.envHash }).from(rewards).where(eq(rewards.episodeId, episodeId));
  // a reviewed episode was scored, so its reward row exists
  const { envHash } = must(reward, `a reward row for reviewed episode ${episodeId}`);
  const [stats] = await tx.execute<{ reviewed: number; disputed: number }>(sql`
    select count(*)::int as reviewed, count(*) filter (where r.verdict in ('false_negative','false_positive'))::int as disputed
    from reviews r join rewards w on w.episode_id = r.episode_id
    where w.env_hash = ${envHash} and r.verdict is not null`);
  if (!stats || stats.disputed < FLAG_MIN_DISPUTED || stats.disputed / stats.reviewed < FLAG_MIN_SHARE) return null;
  const reason = `${stats.disputed} of ${stats.reviewed} reviewed rewards on ${envHash} were disputed`;
  const res = await tx
    .update(environments)
    .set({ flaggedAt: new Date(), flagReason: reason })
    .where(and(eq(environments.contentHash, envHash), sql`${environments.flaggedAt} is null`))
    .returning({ name: environments.name });
  for (const r of res)
    await appendAudit(tx, { actor: 'system:reviews', action: 'environment.flag', targetType: 'environment', targetId: r.name, details: { envHash, reason } });
  return res[0]?.name ?? null;
}

export async function latestDiagnosis(db: Db, reviewId: string) {
  const [d] = await db
    .select()
    .from(diagnoses)
    .where(eq(diagnoses.reviewId, reviewId))
    .orderBy(sql`${diagnoses.createdAt} desc`)
    .limit(1);
  return d ?? null;
}
