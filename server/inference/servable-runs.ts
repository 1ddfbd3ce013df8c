import { desc, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';

/** Runs of registered models with at least one policy version, newest first: `run:RUN_ID` models of the endpoint. */
export async function servableRuns(db: Db, limit = 100): Promise<{ id: string; name: string; model: string; createdAt: Date }[]> {
  const rows = await db
    .select({ id: runs.id, name: runs.name, model: sql<string>`${runs.config}->'policy'->>'model'`, createdAt: runs.createdAt })
    .from(runs)
    .where(sql`${runs.config}->'policy'->>'kind' = 'hf' and exists (select 1 from policy_versions v where v.run_id = ${runs.id})`)
    .orderBy(desc(runs.createdAt))
    .limit(limit);
  return rows;
}
