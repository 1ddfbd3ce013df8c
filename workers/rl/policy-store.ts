import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/open-database';
import { policyVersions } from '@/db/schema';
import type { Executor } from '@/server/queue';
import type { RunConfig } from '@/core/run-config';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { Policy } from '@/lib/policy/policy';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import { getModel, modelDirectory } from '@/server/models/service';
import { ArtifactCorruptError, ArtifactMissingError, type ArtifactRef, type ArtifactStore } from '@/lib/artifacts/artifact-store';

/** A run's local working directory for checkpoints being written (under the worker's data directory), before they are published. */
export const policyDir = (runId: string, root: string = dataDir()) => path.join(root, 'policies', runId);

// One loaded policy per checkpoint (by hash) per process: sessions are expensive to build.
const cache = new Map<string, Promise<RlPolicy>>();

export type VersionRow = typeof policyVersions.$inferSelect;

/**
 * Where checkpoints come from: the artifact store, and this host's data directory (for
 * versions older than the store); `db` finds a Hugging Face run's registered base model.
 */
export type CheckpointSource = { store: ArtifactStore; dataDir: string; db?: Db };

type RunRef = { id: string; config: RunConfig };

/** A Hugging Face run's base model on this host (fetched from the registry by hash) and its identity. */
export async function runBaseModel(run: RunRef, from: CheckpointSource): Promise<{ dir: string; base: string }> {
  const choice = run.config.policy;
  if (choice.kind !== 'hf') throw new Error(`run ${run.id} trains the byte model, not a registered one`);
  if (!from.db) throw new Error(`run ${run.id} trains model "${choice.model}": loading it needs the database (the models registry)`);
  const row = await getModel(from.db, choice.model).catch((err: Error) => {
    throw new PermanentJobError(`run ${run.id} trains model "${choice.model}": ${err.message}`);
  });
  return { dir: await modelDirectory(from.store, row, from.dataDir), base: row.weightsSha256 };
}

/** A checkpoint file of this run's kind of policy. */
async function readPolicyFile(run: RunRef, file: string, from: CheckpointSource): Promise<RlPolicy> {
  if (run.config.policy.kind === 'byte') return (await Policy.load(file)).policy;
  const { dir, base } = await runBaseModel(run, from);
  return HfRlPolicy.load(dir, file, { base }, { precision: run.config.policy.precision });
}

const fileSha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/**
 * Save a policy as a run's version `version`: written locally, published to the artifact
 * store (any worker host can then fetch it by its sha256), and the local file removed.
 */
export async function publishCheckpoint(store: ArtifactStore, policy: RlPolicy, runId: string, version: number, root: string): Promise<ArtifactRef> {
  const dir = policyDir(runId, root);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `v${String(version).padStart(6, '0')}.${process.pid}.ckpt`);
  try {
    const saved = await policy.save(file);
    const ref = await store.publishFile(file);
    if (ref.sha256 !== saved.sha256) throw new Error(`checkpoint ${file} changed while it was published (${saved.sha256} then ${ref.sha256})`);
    return ref;
  } finally {
    await fs.rm(file, { force: true });
    await fs.rm(`${file}.sha256`, { force: true });
  }
}

/**
 * Load a run's policy version from the artifact store, refusing a checkpoint that is not the
 * one recorded for this run (its bytes do not hash to the version's sha256: edited, swapped or
 * corrupted) or that was trained under a different learning rate than the run's config:
 * resuming from it would silently train something else.
 */
export async function loadRunPolicy(run: RunRef, v: VersionRow, from: CheckpointSource): Promise<RlPolicy> {
  const where = await checkpointOf(run, v, from);
  const policy = await loadPolicy(run, where, v.sha256, from).catch(refuse(run, v));
  return checked(run, v, policy, cachedSha.get(cacheKey(run, v.sha256)));
}

/** A private, mutable copy for the learner (the cached ones are shared by rollouts). */
export async function loadRunPolicyForTraining(run: RunRef, v: VersionRow, from: CheckpointSource): Promise<RlPolicy> {
  const file = await checkpointOf(run, v, from);
  const sha = await fileSha(file);
  const policy = await readPolicyFile(run, file, from).catch(refuse(run, v));
  return checked(run, v, policy, sha);
}

/**
 * Weight feeds of version `v` for scoring with `policy` (the reference policy's, for the KL):
 * a Hugging Face run reads only the version's trained tensors onto the shared base (no second
 * model); the byte model loads the checkpoint. `release` frees what was loaded.
 */
export async function referenceParams(
  run: RunRef,
  v: VersionRow,
  from: CheckpointSource,
  policy: RlPolicy,
): Promise<{ params: unknown; release: () => Promise<void> }> {
  if (policy instanceof HfRlPolicy) {
    const file = await checkpointOf(run, v, from);
    if ((await fileSha(file)) !== v.sha256)
      throw new PermanentJobError(`policy version v${v.version} of run ${run.id}: its checkpoint does not match the recorded sha256`);
    return { params: await policy.versionParams(file).catch(refuse(run, v)), release: async () => {} };
  }
  const ref = await loadRunPolicyForTraining(run, v, from);
  return { params: ref.params, release: () => ref.release() };
}

/** The byte model of a run, for what only it can do yet (I/O tasks, the SFT warm start). */
export function bytePolicy(run: RunRef, policy: RlPolicy, what: string): Policy {
  if (policy instanceof Policy) return policy;
  throw new PermanentJobError(
    `run ${run.id} trains the registered model "${run.config.policy.kind === 'hf' ? run.config.policy.model : '?'}", which runs text and repository tasks; ${what} need the built-in byte model (launch with policy {kind: "byte"}, or pick a text suite such as "stories" or a repository suite)`,
  );
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

/**
 * A verified local file holding version `v`'s checkpoint, fetched by hash. A version written
 * before checkpoints were artifacts (a `checkpoint_path`, nothing in the store) is read from
 * that path on this host, only inside this run's own policy directory, and published.
 */
async function checkpointOf(run: { id: string }, v: VersionRow, { store, dataDir: root }: CheckpointSource): Promise<string> {
  try {
    return await store.fetch(v.sha256);
  } catch (err) {
    if (err instanceof ArtifactCorruptError) {
      throw new PermanentJobError(
        `policy version v${v.version} of run ${run.id}: its checkpoint does not match the recorded sha256 (${err.message}); restore the artifact or clone the run to start over`,
      );
    }
    if (err instanceof ArtifactMissingError && !v.checkpointPath) {
      // the version row is written only after its publish succeeded: missing now means this host
      // looks in another store than the host that trained it, which no retry fixes
      throw new PermanentJobError(
        `policy version v${v.version} of run ${run.id}: ${err.message}. ${
          store.backend.name === 'local'
            ? 'This host uses its own local artifact store; with several worker hosts every host needs the shared backend (CRUCIBLE_ARTIFACT_BACKEND=database, the default with DATABASE_URL, or s3), see docs/scale-out.md'
            : 'Check that every worker host uses the same CRUCIBLE_ARTIFACT_BACKEND (and S3 bucket), see docs/scale-out.md'
        }`,
      );
    }
    if (!(err instanceof ArtifactMissingError) || !v.checkpointPath) throw err;
  }
  const where = path.resolve(v.checkpointPath);
  if (path.dirname(where) !== path.resolve(policyDir(run.id, root))) {
    throw new PermanentJobError(
      `policy version v${v.version} is neither in the artifact store (${store.backend.describe()}) nor in this run's policy directory on this host (it points at ${where}): refusing to resume from another run's checkpoint; clone the run instead`,
    );
  }
  const ref = await store.publishFile(where).catch(() => undefined);
  if (!ref || ref.sha256 !== v.sha256)
    throw new PermanentJobError(
      `checkpoint ${where} does not match policy version v${v.version} of run ${run.id} (sha256 ${ref?.sha256.slice(0, 12)} ≠ recorded ${v.sha256.slice(0, 12)}): it was modified or replaced; restore the original file or clone the run to start over`,
    );
  return store.fetch(v.sha256);
}

function checked<P extends RlPolicy>(run: RunRef, v: VersionRow, policy: P, sha: string | undefined): P {
  if (sha !== v.sha256) {
    throw new PermanentJobError(
      `the checkpoint loaded for policy version v${v.version} of run ${run.id} does not match it (sha256 ${sha?.slice(0, 12)} ≠ recorded ${v.sha256.slice(0, 12)}): it was modified or replaced; restore the original or clone the run to start over`,
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

/** A loaded checkpoint's cache key: its bytes, and for a registered model the precision it computes in. */
function cacheKey(run: RunRef, sha256: string): string {
  const choice = run.config.policy;
  return choice.kind === 'hf' ? `${sha256}:${choice.precision ?? 'fp32'}` : sha256;
}

/**
 * The shared, loaded policy of a checkpoint file whose bytes are `sha256` (the cache key: the
 * file may move, the bytes do not), computing in the run's precision: two runs can write the
 * same bytes (v0 of the same model and seed) and differ only in how they compute.
 */
export function loadPolicy(run: RunRef, file: string, sha256: string, from: CheckpointSource): Promise<RlPolicy> {
  const key = cacheKey(run, sha256);
  let p = cache.get(key);
  if (!p) {
    p = (async () => {
      const sha = await fileSha(file);
      const policy = await readPolicyFile(run, file, from);
      cachedSha.set(key, sha);
      return policy;
    })();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
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
