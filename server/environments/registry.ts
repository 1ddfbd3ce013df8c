import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments } from '@/db/schema';
import type { Environment } from '@/lib/sandbox/env/env-manifest';
import type { VerifyResult } from '@/lib/sandbox/env/env-verify';

/**
 * The `environments` table as the sandbox layer's environment registry: baseline hash,
 * toolchain lock and size of each built environment, and the outcome of re-hashing it.
 */

/**
 * Upsert the `environments` row for a built environment (by name): its baseline hash,
 * toolchain lock and size. A quarantine is never cleared here, not even by a rebuild;
 * clearing is an explicit admin action (`setQuarantine` in server/reviews/environments.ts).
 */
export async function recordEnvironment(db: Db, env: Environment): Promise<void> {
  const row = {
    name: env.name,
    contentHash: env.hash,
    toolchainLock: env.toolchainLock,
    manifestPath: env.manifestPath,
    fileCount: env.fileCount,
    totalBytes: env.totalBytes,
  };
  await db.insert(environments).values(row).onConflictDoUpdate({ target: environments.name, set: row });
}

/**
 * Register an environment's row only if its name has none yet (a worker's first start on
 * it). An existing row is left alone: a baseline that differs from this host's build is
 * drift the review view should show, not something a start silently overwrites.
 */
export async function registerEnvironment(db: Db, env: Environment): Promise<void> {
  await db
    .insert(environments)
    .values({
      name: env.name,
      contentHash: env.hash,
      toolchainLock: env.toolchainLock,
      manifestPath: env.manifestPath,
      fileCount: env.fileCount,
      totalBytes: env.totalBytes,
    })
    .onConflictDoNothing({ target: environments.name });
}

/** The baseline content hash recorded under an environment's name. */
export async function baselineHash(db: Db, name: string): Promise<string | undefined> {
  const [row] = await db.select({ hash: environments.contentHash }).from(environments).where(eq(environments.name, name));
  return row?.hash;
}

/** The image `crucible env publish` recorded for a name, with the baseline hash it must reproduce. */
export async function environmentImage(db: Db, name: string): Promise<{ hash: string; imageSha256: string } | undefined> {
  const [row] = await db
    .select({ hash: environments.contentHash, imageSha256: environments.imageSha256 })
    .from(environments)
    .where(eq(environments.name, name));
  return row?.imageSha256 ? { hash: row.hash, imageSha256: row.imageSha256 } : undefined;
}

/**
 * Record `imageSha256` as the image of `env.name`. The image must be of the baseline: a name
 * with no row gets one (this build becomes the baseline); a row whose baseline differs is
 * refused, since other hosts would fetch an environment the gate then refuses.
 */
export async function recordEnvironmentImage(db: Db, env: Environment, imageSha256: string): Promise<void> {
  await registerEnvironment(db, env);
  const baseline = await baselineHash(db, env.name);
  if (baseline !== env.hash) {
    throw new Error(
      `environment "${env.name}" here is ${env.hash}, but its baseline is ${baseline}: publish from a host whose build matches, or make this build the baseline first with \`crucible env build\``,
    );
  }
  await db.update(environments).set({ imageSha256 }).where(eq(environments.name, env.name));
}

/** Mark a verification: a pass stamps lastVerifiedAt, a failure quarantines the environment. */
export async function recordVerification(db: Db, env: Environment, v: VerifyResult): Promise<void> {
  const set = v.ok ? { lastVerifiedAt: new Date() } : { quarantinedAt: new Date(), quarantineReason: v.problems.slice(0, 10).join('; ').slice(0, 2000) };
  await db.update(environments).set(set).where(eq(environments.name, env.name));
}
