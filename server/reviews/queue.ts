import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments, episodes, policyVersions, reviewEvents, reviews, rewards, runs, tasks, turns, users } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { reviewConfig } from '@/core/run-config';
import { blindRun, SAMPLE_REASON_WITHHELD } from './blind';
import type { Verdict } from './kappa';

/** How long a claim is held before it returns to the queue (an abandoned claim). */
export const CLAIM_MS = 15 * 60_000;

export type QueueFilter = { runId?: string };
export type ClaimOptions = QueueFilter & {
  /**
   * Items this reviewer skipped in this session: neither they nor the other slot of their
   * episode are handed out again until the list is dropped.
   */
  exclude?: string[];
  /**
   * Blind review (reviewers): an item of a blind run this reviewer holds is handed back
   * whatever `runId` says, so claiming with each run's id in turn does not tell which run
   * the held item belongs to (docs/reviews.md, blind review).
   */
  blindHeldIgnoresRun?: boolean;
};
export type ClaimResult = {
  id: string | null;
  /** Open items left only among the excluded (skipped) ones: drop the exclude list to go through them again. */
  skippedLeft: number;
};

/**
 * Open slots this reviewer may take: no verdict, not held by anyone (or the claim expired),
 * never a second slot of an episode the reviewer already has a slot on.
 */
const claimable = (reviewerId: string, filter: QueueFilter) => sql`
  r.verdict is null
  and r.twin_of is null
  and (r.claim_expires_at is null or r.claim_expires_at < now())
  ${filter.runId ? sql`and r.run_id = ${filter.runId}` : sql``}
  and not exists (select 1 from reviews o where o.episode_id = r.episode_id and o.id <> r.id and o.reviewer_id = ${reviewerId})`;

/**
 * The claim order (docs/reviews.md, "Claim order"):
 * 1. runs below their required coverage first, the lowest coverage (reviewed / required) first,
 *    then the largest shortfall: the 5% floor is what the queue exists to keep;
 * 2. within that, boundary and anomaly items before uniform ones: they are where rewards go wrong;
 * 3. then the oldest item, first slot first.
 * Coverage is computed only for runs that have open items.
 */
const claimOrder = sql`
  (c.reviewed >= c.required),
  case when c.required = 0 then 1 else c.reviewed::float8 / c.required end,
  (c.required - c.reviewed) desc,
  case when r.sample_reason ~ '(^|,)(boundary|anomaly):' then 0 else 1 end,
  r.created_at, r.slot, r.id`;

const runCoverage = (filter: QueueFilter) => sql`
  open_runs as (select distinct run_id from reviews where verdict is null ${filter.runId ? sql`and run_id = ${filter.runId}` : sql``}),
  cov as (
    select o.run_id,
      ceil(greatest(coalesce((ru.config->'review'->>'rate')::float8, 0.05), 0.05)
        * (select count(*) from rewards w join episodes e on e.id = w.episode_id where e.run_id = o.run_id))::int as required,
      (select count(distinct v.episode_id)::int from reviews v where v.run_id = o.run_id and v.verdict is not null) as reviewed
    from open_runs o join runs ru on ru.id = o.run_id)`;

/**
 * Claim the next review for `reviewerId` in the claim order above, skipping `exclude`.
 * SKIP LOCKED: two reviewers claiming at once get different items. A claim this reviewer
 * still holds is handed back as the next item, unless it is excluded (skipped) or outside
 * `runId`: then it returns to the queue, so a skip is one call.
 */
export async function claimNext(db: Db, reviewerId: string, opts: ClaimOptions = {}): Promise<ClaimResult> {
  const exclude = [...new Set(opts.exclude ?? [])];
  return db.transaction(async (tx) => {
    // Still this reviewer's: held, or expired but not yet taken by anyone else (blind.ts counts
    // those as pending too, so they must answer the same way to a runId filter).
    const held = await tx
      .select({ id: reviews.id, runId: reviews.runId, live: sql<boolean>`${reviews.claimExpiresAt} > now()`, blind: sql<boolean>`${blindRun('runs')}` })
      .from(reviews)
      .innerJoin(runs, eq(runs.id, reviews.runId))
      .where(
        and(
          eq(reviews.reviewerId, reviewerId),
          isNull(reviews.verdict),
          opts.blindHeldIgnoresRun ? sql`(${reviews.claimExpiresAt} > now() or ${blindRun('runs')})` : sql`${reviews.claimExpiresAt} > now()`,
        ),
      )
      .orderBy(asc(reviews.claimedAt));
    const keep = held.find((h) => !exclude.includes(h.id) && (!opts.runId || h.runId === opts.runId || (opts.blindHeldIgnoresRun && h.blind)));
    if (keep) {
      if (!keep.live)
        await tx
          .update(reviews)
          .set({ claimedAt: new Date(), claimExpiresAt: new Date(Date.now() + CLAIM_MS) })
          .where(eq(reviews.id, keep.id));
      return { id: keep.id, skippedLeft: 0 };
    }
    if (held.length) {
      await tx
        .update(reviews)
        .set({ reviewerId: null, claimedAt: null, claimExpiresAt: null })
        .where(
          inArray(
            reviews.id,
            held.map((h) => h.id),
          ),
        );
    }
    const rows = await tx.execute<{ id: string }>(sql`
      with ${runCoverage(opts)}
      select r.id from reviews r join cov c on c.run_id = r.run_id
      where ${claimable(reviewerId, opts)}
        ${exclude.length ? sql`and r.episode_id not in (select x.episode_id from reviews x where x.id in ${exclude})` : sql``}
      order by ${claimOrder}
      limit 1
      for update of r skip locked`);
    const id = rows[0]?.id;
    if (!id) {
      if (!exclude.length) return { id: null, skippedLeft: 0 };
      const [{ n } = { n: 0 }] = await tx.execute<{ n: number }>(sql`
        select count(*)::int as n from reviews r where ${claimable(reviewerId, opts)}
          and r.episode_id in (select x.episode_id from reviews x where x.id in ${exclude})`);
      return { id: null, skippedLeft: n };
    }
    await tx
      .update(reviews)
      .set({ reviewerId, claimedAt: new Date(), claimExpiresAt: new Date(Date.now() + CLAIM_MS) })
      .where(eq(reviews.id, id));
    return { id, skippedLeft: 0 };
  });
}

/** Hand a claimed item back to the queue without claiming another (claimNext with `exclude` is the skip). */
export async function releaseClaim(db: Db, reviewId: string, reviewerId: string) {
  const res = await db
    .update(reviews)
    .set({ reviewerId: null, claimedAt: null, claimExpiresAt: null })
    .where(and(eq(reviews.id, reviewId), eq(reviews.reviewerId, reviewerId), isNull(reviews.verdict)))
    .returning({ id: reviews.id });
  if (!res.length) throw new DomainError('CONFLICT', 'you do not hold a claim on this item (it may have expired)');
  return { released: true };
}

/**
 * Queue items: open ones in the claim order (what reviewers get next comes first), others
 * oldest first. For a viewer with an open slot on an episode, the other slots' verdicts on
 * it are withheld (double review is independent).
 */
export async function listQueue(
  db: Db,
  opts: {
    runId?: string;
    state?: 'open' | 'done' | 'all';
    page: number;
    pageSize: number;
    viewerId?: string | null;
    /**
     * Blind review (reviewers): with a runId filter, leave out the viewer's own pending blind
     * items, so that filtering by each run in turn does not tell which run holds them.
     */
    hideOwnBlindFromRunFilter?: boolean;
  },
) {
  const offset = (opts.page - 1) * opts.pageSize;
  const hideOwn =
    opts.runId && opts.hideOwnBlindFromRunFilter && opts.viewerId
      ? sql`not exists (select 1 from reviews h join runs hr on hr.id = h.run_id where h.id = ${reviews.id}
        and h.reviewer_id = ${opts.viewerId} and h.verdict is null and ${blindRun('hr')})`
      : null;
  // The open page's ids in claim order; the rows are then fetched by id and put back in that order.
  const openPage =
    opts.state === 'open'
      ? (
          await db.execute<{ id: string }>(sql`
        with ${runCoverage(opts)}
        select r.id from reviews r join cov c on c.run_id = r.run_id
        where r.verdict is null and r.twin_of is null ${opts.runId ? sql`and r.run_id = ${opts.runId}` : sql``}
          ${
            hideOwn
              ? sql`and r.id not in (select h.id from reviews h join runs hr on hr.id = h.run_id
            where h.reviewer_id = ${opts.viewerId} and h.verdict is null and ${blindRun('hr')})`
              : sql``
          }
        order by ${claimOrder} limit ${opts.pageSize} offset ${offset}`)
        ).map((r) => r.id)
      : null;
  const conds = [];
  if (opts.runId) conds.push(eq(reviews.runId, opts.runId));
  if (opts.state === 'open') conds.push(isNull(reviews.verdict));
  if (opts.state === 'done') conds.push(sql`${reviews.verdict} is not null`);
  if (hideOwn) conds.push(hideOwn);
  const where = conds.length ? and(...conds) : undefined;
  // Blind review: an open item of a blind run, or any slot of an episode the viewer still has
  // open, shows neither its episode nor its run (they lead to the reward); as in reviewItem.
  const withheld = sql`(${reviews.verdict} is null and ${blindRun('runs')})${
    opts.viewerId
      ? sql` or (${reviews.reviewerId} is distinct from ${opts.viewerId} and exists (select 1 from reviews o where o.episode_id = ${reviews.episodeId}
        and o.reviewer_id = ${opts.viewerId} and o.verdict is null))`
      : sql``
  }`;
  const items = await db
    .select({
      id: reviews.id,
      episodeId: sql<string | null>`case when ${withheld} then null else ${reviews.episodeId} end`,
      runId: sql<string | null>`case when ${withheld} then null else ${reviews.runId} end`,
      // Most sample reasons are computed from the reward (blind.ts, SAMPLE_REASON_WITHHELD).
      slot: reviews.slot,
      sampleReason: sql<string>`case when ${withheld} then ${SAMPLE_REASON_WITHHELD} else ${reviews.sampleReason} end`,
      verdict: opts.viewerId
        ? sql<Verdict | null>`case when ${reviews.reviewerId} is distinct from ${opts.viewerId} and exists (select 1 from reviews o where o.episode_id = ${reviews.episodeId}
            and o.reviewer_id = ${opts.viewerId} and o.verdict is null) then null else ${reviews.verdict} end`
        : reviews.verdict,
      reviewer: users.username,
      claimExpiresAt: reviews.claimExpiresAt,
      submittedAt: reviews.submittedAt,
      createdAt: reviews.createdAt,
      taskExternalId: tasks.externalId,
    })
    .from(reviews)
    .innerJoin(episodes, eq(episodes.id, reviews.episodeId))
    .innerJoin(runs, eq(runs.id, reviews.runId))
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(users, eq(users.id, reviews.reviewerId))
    .where(openPage ? (openPage.length ? inArray(reviews.id, openPage) : sql`false`) : where)
    .orderBy(asc(reviews.createdAt), asc(reviews.slot))
    .limit(opts.pageSize)
    .offset(openPage ? 0 : offset);
  if (openPage) items.sort((a, b) => openPage.indexOf(a.id) - openPage.indexOf(b.id));
  const [{ total } = { total: 0 }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(reviews)
    .where(where);
  return { items, total };
}

/**
 * What a reviewer sees. Blind review (the run's setting, on by default) withholds everything
 * that leads to the reward, the run or the policy (episode id, run name and id, policy
 * version, automatic reward and its components) until this review has a verdict.
 */
export async function reviewItem(db: Db, reviewId: string, viewer: { id: string | null; role: string }) {
  const [row] = await db
    .select({
      review: reviews,
      episode: episodes,
      task: tasks,
      runName: runs.name,
      config: runs.config,
      reward: rewards,
      policyVersion: policyVersions.version,
    })
    .from(reviews)
    .innerJoin(episodes, eq(episodes.id, reviews.episodeId))
    .innerJoin(runs, eq(runs.id, reviews.runId))
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .leftJoin(policyVersions, eq(policyVersions.id, episodes.policyVersionId))
    .where(eq(reviews.id, reviewId));
  if (!row) throw new DomainError('NOT_FOUND', `no review item ${reviewId}`);
  const blind = reviewConfig.parse(row.config.review ?? {}).blind;
  // Double review is independent: while the viewer still has an open slot on this episode,
  // another reviewer's verdict on it (and what that verdict reveals) stays hidden.
  const [ownOpen] =
    viewer.id && row.review.reviewerId !== viewer.id
      ? await db
          .select({ id: reviews.id })
          .from(reviews)
          .where(and(eq(reviews.episodeId, row.episode.id), eq(reviews.reviewerId, viewer.id), isNull(reviews.verdict)))
          .limit(1)
      : [];
  const independent = !ownOpen;
  const revealed = (!blind || row.review.verdict !== null) && independent;
  const turnRows = await db
    .select({
      index: turns.index,
      action: turns.action,
      observation: turns.observation,
      stdout: turns.stdout,
      stderr: turns.stderr,
      exitCode: turns.exitCode,
      execStatus: turns.execStatus,
      /** an agent turn (repository task): its observation is the tool output the agent saw */
      agent: sql<boolean>`${turns.toolCalls} is not null`,
    })
    .from(turns)
    .where(eq(turns.episodeId, row.episode.id))
    .orderBy(asc(turns.index));
  // The environment's baseline: the hash registered under the environment's name.
  const [baseline] = row.reward?.envHash
    ? await db
        .select({ name: environments.name, contentHash: environments.contentHash, quarantinedAt: environments.quarantinedAt })
        .from(environments)
        .where(eq(environments.name, row.task?.environmentName ?? 'default'))
    : [];
  const history = independent ? await db.select().from(reviewEvents).where(eq(reviewEvents.reviewId, reviewId)).orderBy(asc(reviewEvents.id)) : [];
  const reward = row.reward;
  return {
    id: row.review.id,
    // Withheld under blind review until a verdict is given: with it, episodes.get would show the reward.
    episodeId: revealed ? row.episode.id : null,
    // Most reasons are computed from the reward (blind.ts, SAMPLE_REASON_WITHHELD).
    sampleReason: revealed ? row.review.sampleReason : SAMPLE_REASON_WITHHELD,
    slot: row.review.slot,
    verdict: independent ? row.review.verdict : null,
    correctedReward: independent ? row.review.correctedReward : null,
    note: independent ? row.review.note : null,
    /** false while the viewer has an open slot of their own on this episode: the other verdict is withheld. */
    independent,
    heldByMe: row.review.reviewerId !== null && row.review.reviewerId === viewer.id,
    claimExpiresAt: row.review.claimExpiresAt,
    blind,
    revealed,
    task: row.task
      ? {
          externalId: row.task.externalId,
          kind: row.task.kind,
          language: row.task.language,
          prompt: row.task.prompt,
          entryPoint: row.task.entryPoint,
          tests: row.task.tests,
        }
      : null,
    // The observation is the check feedback the policy saw ("2/3 passed; …"): the reward's pass
    // count, withheld like the components. What the candidate printed stays: it is what is judged.
    // An agent turn's observation is its tool output (the hidden tests run only at grading), so it stays.
    turns: revealed ? turnRows : turnRows.map((t) => (t.agent ? t : { ...t, observation: null })),
    // A repository task's patch as grading applied it: what the reviewer judges (not reward data).
    patch: row.episode.grading?.patch ?? null,
    components: revealed ? (reward?.components ?? null) : null, // the reward's parts (pass rate…) are the reward
    envHash: reward?.envHash ?? row.episode.envHash,
    baselineEnv: baseline
      ? { name: baseline.name, hash: baseline.contentHash, matches: baseline.contentHash === reward?.envHash, quarantined: !!baseline.quarantinedAt }
      : null,
    // Withheld under blind review until a verdict is given.
    runName: revealed ? row.runName : null,
    // how the reward combines its components (the card's breakdown): the run's weights, withheld like the reward
    rewardWeights: revealed ? (row.config.rewardWeights ?? null) : null,
    repoReward: revealed ? (row.config.repoReward ?? null) : null,
    runId: revealed ? row.review.runId : null,
    policyVersion: revealed ? row.policyVersion : null,
    reward: revealed ? (reward?.value ?? null) : null,
    history,
  };
}
