import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { RESOURCE_ROLLUPS as TIERS } from '@/core/metrics';

// The resolutions (tiers) and their retention are core/metrics.ts's RESOURCE_ROLLUPS, which /resources reads too.

/**
 * Average finished buckets of the finer tier into the coarser one (idempotent: buckets
 * already written are skipped), then delete points past each tier's retention.
 */
export async function rollup(db: Db, now = new Date()): Promise<{ written: number; deleted: number }> {
  let written = 0;
  let deleted = 0;
  for (let i = 1; i < TIERS.length; i++) {
    const from = TIERS[i - 1]!.source;
    const to = TIERS[i]!;
    const secs = to.bucketMs / 1000;
    const rows = await db.execute(sql`
      insert into metric_samples (source, name, value, labels, at)
      select ${to.source}, s.name, avg(s.value), s.labels, to_timestamp(floor(extract(epoch from s.at) / ${secs}) * ${secs}) as bucket
      from metric_samples s
      where s.source = ${from} and s.run_id is null
        and s.at < to_timestamp(floor(extract(epoch from ${now.toISOString()}::timestamptz) / ${secs}) * ${secs})
        and s.at >= coalesce((select max(at) + make_interval(secs => ${secs}) from metric_samples where source = ${to.source}), '-infinity'::timestamptz)
      group by s.name, s.labels, bucket
      returning 1`);
    written += rows.length;
  }
  for (const t of TIERS) {
    const cutoff = new Date(now.getTime() - t.keepMs).toISOString();
    const rows = await db.execute(sql`delete from metric_samples where source = ${t.source} and at < ${cutoff}::timestamptz returning 1`);
    deleted += rows.length;
  }
  return { written, deleted };
}
