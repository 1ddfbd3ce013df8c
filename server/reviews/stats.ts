import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';
import { DomainError } from '@/server/errors';
import { reviewConfig } from '@/core/run-config';
import { cohensKappa, type Verdict } from './kappa';

export type Coverage = {
  runId: string;
  scored: number;
  sampled: number;
  reviewed: number;
  required: number;
  rate: number;
  coverage: number;
  belowTarget: boolean;
};

/**
 * Coverage per run: reviewed episodes over the number the review rate requires
 * (ceil(rate × scored), rate never below 5%). A run below 1.0 is flagged.
 */
export async function coverage(db: Db, runIds?: string[]): Promise<Coverage[]> {
  const rows = await db.execute<{ run_id: string; config: { review?: unknown }; scored: number; sampled: number; reviewed: number }>(sql`
    select r.id as run_id, r.config,
      (select count(*)::int from rewards w join episodes e on e.id = w.episode_id where e.run_id = r.id) as scored,
      (select count(distinct v.episode_id)::int from reviews v where v.run_id = r.id) as sampled,
      (select count(distinct v.episode_id)::int from reviews v where v.run_id = r.id and v.verdict is not null) as reviewed
    from runs r ${runIds?.length ? sql`where r.id in ${runIds}` : sql``}`);
  return rows.map((r) => {
    const rate = reviewConfig.parse(r.config.review ?? {}).rate;
    const required = Math.ceil(rate * r.scored);
    return {
      runId: r.run_id,
      scored: r.scored,
      sampled: r.sampled,
      reviewed: r.reviewed,
      required,
      rate,
      coverage: required === 0 ? 1 : r.reviewed / required,
      belowTarget: r.reviewed < required,
    };
  });
}

/** Cohen's kappa for every pair of reviewers who reviewed the same double-review items, and pooled over all pairs. */
export async function agreement(db: Db, runId?: string) {
  const rows = await db.execute<{ a: string; b: string; va: Verdict; vb: Verdict }>(sql`
    select ua.username as a, ub.username as b, x.verdict as va, y.verdict as vb
    from reviews x join reviews y on y.episode_id = x.episode_id and y.slot > x.slot
    join users ua on ua.id = x.reviewer_id join users ub on ub.id = y.reviewer_id
    where x.verdict is not null and y.verdict is not null ${runId ? sql`and x.run_id = ${runId}` : sql``}`);
  const byPair = new Map<string, [Verdict, Verdict][]>();
  for (const r of rows) {
    // Order each pair by name so (alice, bob) and (bob, alice) are one pair.
    const [p, q, vp, vq] = r.a < r.b ? [r.a, r.b, r.va, r.vb] : [r.b, r.a, r.vb, r.va];
    const key = `${p}\u0000${q}`;
    byPair.set(key, [...(byPair.get(key) ?? []), [vp, vq]]);
  }
  const pairs = [...byPair.entries()].map(([k, items]) => {
    const [a, b] = k.split('\u0000');
    return { a: a!, b: b!, items: items.length, agreement: items.filter(([x, y]) => x === y).length / items.length, kappa: cohensKappa(items) };
  });
  const all = rows.map((r) => [r.va, r.vb] as [Verdict, Verdict]);
  return { pairs, overall: { items: all.length, kappa: cohensKappa(all) } };
}

/** Each reviewer's throughput: verdicts given, in the last 24 h and per hour while active. */
export async function reviewerStats(db: Db) {
  return db.execute<{ username: string; reviewed: number; last24h: number; double_reviewed: number; first_at: Date | null; last_at: Date | null }>(sql`
    select u.username,
      count(r.*) filter (where r.verdict is not null)::int as reviewed,
      count(r.*) filter (where r.submitted_at > now() - interval '24 hours')::int as last24h,
      count(r.*) filter (where r.verdict is not null and exists (select 1 from reviews o where o.episode_id = r.episode_id and o.id <> r.id))::int as double_reviewed,
      min(r.submitted_at) as first_at, max(r.submitted_at) as last_at
    from users u join reviews r on r.reviewer_id = u.id
    group by u.username order by reviewed desc`);
}

type Rel = {
  key: string;
  reviewed: number;
  disputed: number;
  falseNegative: number;
  falsePositive: number;
  disputedRate: number;
  falseNegativeRate: number;
  falsePositiveRate: number;
};

/** Disputed, false-negative and false-positive rates of a run, overall, by environment hash and by task. */
export async function reliability(db: Db, runId: string) {
  const [run] = await db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId));
  if (!run) throw new DomainError('NOT_FOUND', `no run ${runId}`);
  const rows = await db.execute<{ env_hash: string; task: string | null; verdict: Verdict }>(sql`
    select w.env_hash, t.external_id as task, r.verdict
    from reviews r join rewards w on w.episode_id = r.episode_id join episodes e on e.id = r.episode_id left join tasks t on t.id = e.task_id
    where r.run_id = ${runId} and r.verdict is not null`);
  const group = (keyOf: (r: (typeof rows)[number]) => string): Rel[] => {
    const m = new Map<string, Verdict[]>();
    for (const r of rows) m.set(keyOf(r), [...(m.get(keyOf(r)) ?? []), r.verdict]);
    return [...m.entries()]
      .map(([key, vs]) => {
        const fn = vs.filter((v) => v === 'false_negative').length,
          fp = vs.filter((v) => v === 'false_positive').length;
        return {
          key,
          reviewed: vs.length,
          disputed: fn + fp,
          falseNegative: fn,
          falsePositive: fp,
          disputedRate: (fn + fp) / vs.length,
          falseNegativeRate: fn / vs.length,
          falsePositiveRate: fp / vs.length,
        };
      })
      .sort((a, b) => b.disputedRate - a.disputedRate || b.reviewed - a.reviewed);
  };
  return { overall: group(() => 'all')[0] ?? null, byEnvHash: group((r) => r.env_hash), byTask: group((r) => r.task ?? '(no task)') };
}
