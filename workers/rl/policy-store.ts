import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/open-database';
import { policyVersions } from '@/db/schema';
import type { Executor } from '@/server/queue';
import type { RunConfig } from '@/core/run-config';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { Policy } from '@/workers/policy/policy';

/** Where a run's policy versions live on disk (under the worker's data directory). */
export const policyDir = (runId: string, root: string = dataDir()) => path.join(root, 'policies', runId);

// One loaded policy per checkpoint file per process: sessions are expensive to build.
const cache = new Map<string, Promise<Policy>>();

export type VersionRow = typeof policyVersions.$inferSelect;

/**
 * Load a run's policy version, refusing a checkpoint that is not the one recorded for
 * this run (edited, swapped, or copied from another run) or that was trained under a
 * different learning rate than the run's config: resuming from it would silently
 * train something else.
 */
export async function loadRunPolicy(run: { id: string; config: RunConfig }, v: VersionRow, root?: string): Promise<Policy> {
  const where = checkpointOf(run, v, root);
  const policy = await loadPolicy(where).catch(refuse(run, v));
  return checked(run, v, policy, cachedSha.get(where));
}

/** A private, mutable copy for the learner (the cached ones are shared by rollouts). */
export async function loadRunPolicyForTraining(run: { id: string; config: RunConfig }, v: VersionRow, root?: string): Promise<Policy> {
  const r = await Policy.load(checkpointOf(run, v, root)).catch(refuse(run, v));
  return checked(run, v, r.policy, r.sha256);
}

/** A checkpoint that fails its own integrity check will not heal on retry: refuse, saying what to do. */
const refuse =
  (run: { id: string }, v: VersionRow) =>
  (err: Error): never => {
    if (/does not match|corrupt/i.test(err.message)) {
      throw new PermanentJobError(`policy version v${v.version} of run ${run.id}: ${err.message}; restore the original file or clone the run to start over`);
    }
    throw err;
  };

function checkpointOf(run: { id: string }, v: VersionRow, root?: string): string {
  const where = path.resolve(v.checkpointPath);
  if (path.dirname(where) !== path.resolve(policyDir(run.id, root))) {
    throw new PermanentJobError(
      `policy version v${v.version} points at ${where}, outside this run's policy directory ${policyDir(run.id, root)}: refusing to resume from another run's checkpoint; clone the run instead`,
    );
  }
  return where;
}

function checked(run: { id: string; config: RunConfig }, v: VersionRow, policy: Policy, sha: string | undefined): Policy {
  if (sha !== v.sha256) {
    throw new PermanentJobError(
      `checkpoint ${v.checkpointPath} does not match policy version v${v.version} of run ${run.id} (sha256 ${sha?.slice(0, 12)} ≠ recorded ${v.sha256.slice(0, 12)}): it was modified or replaced; restore the original file or clone the run to start over`,
    );
  }
  // a no-update run (learning rate 0, a control arm) never steps, so its optimizer's rate is moot
  if (run.config.learningRate > 0 && Math.abs(policy.optim.lr - run.config.learningRate) > 1e-12) {
    throw new PermanentJobError(
      `checkpoint v${v.version} was trained with learning rate ${policy.optim.lr}, but run ${run.id} is configured with ${run.config.learningRate}: refusing to resume under a different config; clone the run to change it`,
    );
  }
  return policy;
}

const cachedSha = new Map<string, string>();

export function loadPolicy(file: string): Promise<Policy> {
  let p = cache.get(file);
  if (!p) {
    p = Policy.load(file).then((r) => {
      cachedSha.set(file, r.sha256);
      return r.policy;
    });
    cache.set(file, p);
    p.catch(() => cache.delete(file));
    // Keep the cache small: a learner and a few rollout versions.
    while (cache.size > 3) {
      const [oldest] = cache.keys();
      const old = cache.get(oldest!)!;
      cache.delete(oldest!);
      cachedSha.delete(oldest!);
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
  const [v] = await db
    .select()
    .from(policyVersions)
    .where(and(eq(policyVersions.runId, runId), eq(policyVersions.version, version)));
  return v;
}

export async function releasePolicies() {
  const all = [...cache.values()];
  cache.clear();
  for (const p of all) await (await p.catch(() => undefined))?.release();
}
