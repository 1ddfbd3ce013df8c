import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/runtime';
import { policyVersions } from '@/db/schema';
import type { Executor } from '@/server/queue';
import { Policy } from '@/workers/policy/policy';

/** Where a run's policy versions live on disk. */
export const policyDir = (runId: string) => path.join(dataDir(), 'policies', runId);

// One loaded policy per checkpoint file per process: sessions are expensive to build.
const cache = new Map<string, Promise<Policy>>();

export function loadPolicy(file: string): Promise<Policy> {
  let p = cache.get(file);
  if (!p) {
    p = Policy.load(file).then((r) => r.policy);
    cache.set(file, p);
    p.catch(() => cache.delete(file));
    // Keep the cache small: a learner and a few rollout versions.
    while (cache.size > 3) {
      const [oldest] = cache.keys();
      const old = cache.get(oldest!)!;
      cache.delete(oldest!);
      void old.then((x) => x.release()).catch(() => undefined);
    }
  }
  return p;
}

export async function latestVersion(db: Executor, runId: string) {
  const [v] = await db.select().from(policyVersions).where(eq(policyVersions.runId, runId)).orderBy(desc(policyVersions.version)).limit(1);
  return v;
}

export async function versionRow(db: Db, runId: string, version: number) {
  const [v] = await db.select().from(policyVersions).where(and(eq(policyVersions.runId, runId), eq(policyVersions.version, version)));
  return v;
}

export async function releasePolicies() {
  const all = [...cache.values()];
  cache.clear();
  for (const p of all) await (await p.catch(() => undefined))?.release();
}
