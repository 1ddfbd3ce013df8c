import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/server/audit/service';
import { RL_REWARD_SPREAD } from '@/core/metrics';

/**
 * Server-side downsampling of a run's metric samples for the charts (the M4 idea: per bucket
 * of steps keep the first, last, minimum and maximum, so spikes and dips survive and a line
 * drawn through the kept points looks like the full one at chart width).
 *
 * Samples are grouped into families that must share their steps: `reward_mean` with its
 * spread (`reward_std`, `reward_min`, `reward_max`, drawn on the same chart at the same x), and
 * a labelled metric with all its label sets (the compare page sums them per step). A family's
 * steps are cut into buckets; a step is kept when it is a bucket's first or last step, or
 * where any member series has its minimum or maximum in that bucket; every member's samples
 * at kept steps are returned. A family is bucketed only when one of its series has more than
 * `maxPoints` points, and its bucket count is chosen so no series gets more than `maxPoints` steps.
 *
 * `downsampleFamily` below is the same rule on plain data (the specification the SQL is
 * tested against); `downsampledMetricRows` is the SQL the API runs.
 */

export type SamplePoint = { step: number; value: number };

/** The family a sample belongs to: the reward spread rides with reward_mean. */
export const metricFamily = (name: string): string => ((RL_REWARD_SPREAD as readonly string[]).includes(name) ? 'reward_mean' : name);

/** How many buckets a family with `members` series gets: each bucket keeps at most 2 + 2 × members steps. */
export const bucketCount = (maxPoints: number, members: number) => Math.max(1, Math.floor(maxPoints / (2 + 2 * members)));

/** The bucket of `step` when the family's steps span lo..hi (integer arithmetic, as in the SQL). */
export const bucketOf = (step: number, lo: number, hi: number, buckets: number) => Math.floor(((step - lo) * buckets) / (hi - lo + 1));

const finite = (p: SamplePoint) => Number.isFinite(p.value);

/**
 * The steps kept of one family: `series` holds each member's points (any order). Returns the
 * kept steps, ascending. Pure: the reference for the SQL in `downsampledMetricRows`.
 */
export function downsampleFamily(series: SamplePoint[][], maxPoints: number): number[] {
  const steps = [...new Set(series.flat().map((p) => p.step))].sort((a, b) => a - b);
  // bucketed once a member series has more points than the cap (counting rows, not distinct
  // steps, is what the SQL can do in one hash aggregate; a re-run step counts twice)
  if (!series.some((s) => s.length > maxPoints)) return steps;
  const lo = steps[0]!;
  const hi = steps[steps.length - 1]!;
  const buckets = bucketCount(maxPoints, series.length);
  const keep = new Set<number>();
  const firstLast = new Map<number, [number, number]>();
  for (const s of steps) {
    const b = bucketOf(s, lo, hi, buckets);
    const fl = firstLast.get(b);
    firstLast.set(b, fl ? [Math.min(fl[0], s), Math.max(fl[1], s)] : [s, s]);
  }
  for (const [first, last] of firstLast.values()) keep.add(first).add(last);
  for (const points of series) {
    // per bucket, the earliest step holding the minimum and the maximum (non-finite values: never)
    const extremes = new Map<number, { min: SamplePoint; max: SamplePoint }>();
    for (const p of points.filter(finite)) {
      const b = bucketOf(p.step, lo, hi, buckets);
      const e = extremes.get(b);
      if (!e) extremes.set(b, { min: p, max: p });
      else {
        if (p.value < e.min.value || (p.value === e.min.value && p.step < e.min.step)) e.min = p;
        if (p.value > e.max.value || (p.value === e.max.value && p.step < e.max.step)) e.max = p;
      }
    }
    for (const e of extremes.values()) keep.add(e.min.step).add(e.max.step);
  }
  return [...keep].sort((a, b) => a - b);
}

export type MetricRow = {
  runId: string;
  name: string;
  step: number | null;
  value: number;
  labels: Record<string, string>;
  at: Date;
};

/** Raw row of the query below (postgres.js returns bigint-free columns as typed here; `id`, a bigint, as text). */
type RawRow = {
  run_id: string;
  name: string;
  step: number | null;
  value: number;
  labels: Record<string, string>;
  /** epoch ms (a number parses far faster than a timestamp's text, 30k times per comparison) */
  at: number;
  sampled: boolean;
  id: string | number;
};

/**
 * Several runs are read one query per run, this many at once. One query over 8 runs' samples
 * spilled its sorts to disk and took 2–3× as long as 8 per-run queries run 4 at a time
 * (docs/benchmarks.md, "Console"); 4 leaves the rest of a 10-connection pool to other requests.
 */
export const RUNS_AT_ONCE = 4;

/** `f` over `items`, at most `limit` at once, results in the items' order. */
async function inBatches<T, R>(items: T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The metric samples of `runIds` (optionally only `names`), downsampled per family as described
 * above, ordered by step, time and id like the full query. Samples without a step (none are
 * written for RL runs) are returned as they are. `downsampled` lists `runId:name` of every
 * series that lost points, so the charts and their CSV can say so.
 */
export async function downsampledMetricRows(
  db: DbOrTx,
  runIds: string[],
  opts: { maxPoints: number; names?: string[] },
): Promise<{ rows: MetricRow[]; downsampled: string[] }> {
  // families never span runs, so each run is downsampled on its own: the same rows as one query
  const parts =
    runIds.length <= 1 ? [await downsampledQuery(db, runIds, opts)] : await inBatches(runIds, RUNS_AT_ONCE, (id) => downsampledQuery(db, [id], opts));
  // ordered by step (steps last where absent), time and id across the runs, like the full read
  // (sorted here rather than in each query: the same order, less work on the database)
  const raw = parts.flat().sort(byStepTimeId);
  const downsampled = new Set<string>();
  const rows = raw.map((r) => {
    if (r.sampled) downsampled.add(`${r.run_id}:${r.name}`);
    return { runId: r.run_id, name: r.name, step: r.step, value: Number(r.value), labels: r.labels ?? {}, at: new Date(Number(r.at)) };
  });
  return { rows, downsampled: [...downsampled] };
}

function byStepTimeId(a: RawRow, b: RawRow): number {
  if (a.step !== b.step) return a.step === null ? 1 : b.step === null ? -1 : a.step - b.step;
  return Number(a.at) - Number(b.at) || Number(a.id) - Number(b.id);
}

/** The query for `runIds` (the rule above), rows unordered. */
async function downsampledQuery(db: DbOrTx, runIds: string[], opts: { maxPoints: number; names?: string[] }): Promise<RawRow[]> {
  const spread = sql.join(
    RL_REWARD_SPREAD.map((n) => sql`${n}`),
    sql`, `,
  );
  const nameFilter = opts.names?.length
    ? sql`and m.name in (${sql.join(
        opts.names.map((n) => sql`${n}`),
        sql`, `,
      )})`
    : sql``;
  const ids = sql.join(
    runIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const max = sql`${opts.maxPoints}::bigint`;
  // One pass of hash aggregates (no window sorts): per series and bucket its first and last
  // step and, among finite values, [min value, earliest step] and [max value, -earliest step]
  // (Postgres compares arrays element by element); then per family and bucket the kept steps.
  const result = await db.execute<RawRow>(sql`
    with s as materialized (
      select m.id, m.run_id, m.name, m.step, m.value, m.labels, m.at,
        -- a series as one text (name, unit separator, canonical jsonb text): grouping and
        -- sorting on it costs a fraction of comparing jsonb values
        m.name || chr(31) || coalesce(m.labels::text, '') as series,
        case when m.name in (${spread}) then 'reward_mean' else m.name end as fam
      from metric_samples m
      where m.run_id in (${ids}) and m.step is not null ${nameFilter}
    ),
    g as (
      select run_id, fam, min(step) as lo, max(step) as hi, count(*) as points from s group by run_id, fam, series
    ),
    f as (
      select run_id, fam, min(lo) as lo, max(hi) as hi, max(points) > ${max} as sampled, count(*) as members from g group by run_id, fam
    ),
    big as (
      select run_id, fam, lo, hi, greatest(1, ${max} / (2 + 2 * members)) as buckets from f where sampled
    ),
    a as (
      select s.run_id, s.fam, ((s.step - big.lo)::bigint * big.buckets) / (big.hi - big.lo + 1) as bucket,
        min(s.step) as first_step, max(s.step) as last_step,
        min(array[s.value, s.step]) filter (where s.value <> 'NaN'::float8 and s.value not in ('Infinity'::float8, '-Infinity'::float8)) as mn,
        max(array[s.value, -s.step]) filter (where s.value <> 'NaN'::float8 and s.value not in ('Infinity'::float8, '-Infinity'::float8)) as mx
      from s join big on big.run_id = s.run_id and big.fam = s.fam
      group by 1, 2, 3, s.series
    ),
    k as (
      select run_id, fam, min(first_step) as step from a group by run_id, fam, bucket
      union select run_id, fam, max(last_step) from a group by run_id, fam, bucket
      union select run_id, fam, mn[2]::int from a where mn is not null
      union select run_id, fam, (-mx[2])::int from a where mx is not null
    )
    select s.run_id, s.name, s.step, s.value, s.labels, (extract(epoch from s.at) * 1000)::float8 as at, f.sampled, s.id
    from s join f on f.run_id = s.run_id and f.fam = s.fam
    where not f.sampled or exists (select 1 from k where k.run_id = s.run_id and k.fam = s.fam and k.step = s.step)
    union all
    select m.run_id, m.name, m.step, m.value, m.labels, (extract(epoch from m.at) * 1000)::float8, false, m.id
      from metric_samples m where m.run_id in (${ids}) and m.step is null ${nameFilter}`);
  return [...result];
}
