import { isNotNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments, models, policyVersions } from '@/db/schema';
import type { ArtifactStore, StoredArtifact } from '@/lib/artifacts/artifact-store';

/**
 * Garbage collection of the artifact store: artifacts nothing references any more (no policy
 * version, no environment image, no registered model's file) and not published within `graceMs`. The grace covers the
 * window between a publish and the row that references it (a learner publishes a checkpoint,
 * then inserts its version row); each candidate is checked again just before it is deleted.
 */

export type GcReport = { scanned: number; referenced: number; recent: number; deleted: StoredArtifact[]; bytesFreed: number; dryRun: boolean };

async function isReferenced(db: Db, sha256: string): Promise<boolean> {
  const [row] = await db.execute<{ n: number }>(
    sql`select (select count(*) from ${policyVersions} where ${policyVersions.sha256} = ${sha256}) + (select count(*) from ${environments} where ${environments.imageSha256} = ${sha256}) + (select count(*) from ${models}, jsonb_array_elements(${models.files}) f where f->>'sha256' = ${sha256}) as n`,
  );
  return Number(row?.n ?? 0) > 0;
}

export async function collectArtifactGarbage(db: Db, store: ArtifactStore, opts: { graceMs: number; dryRun?: boolean; now?: Date }): Promise<GcReport> {
  const cutoff = (opts.now ?? new Date()).getTime() - opts.graceMs;
  const refs = new Set<string>([
    ...(await db.select({ sha: policyVersions.sha256 }).from(policyVersions)).map((r) => r.sha),
    ...(await db.select({ sha: environments.imageSha256 }).from(environments).where(isNotNull(environments.imageSha256))).map((r) => r.sha!),
    ...(await db.select({ files: models.files }).from(models)).flatMap((r) => r.files.map((f) => f.sha256)),
  ]);
  const report: GcReport = { scanned: 0, referenced: 0, recent: 0, deleted: [], bytesFreed: 0, dryRun: !!opts.dryRun };
  for await (const a of store.backend.list()) {
    report.scanned++;
    if (refs.has(a.sha256)) report.referenced++;
    else if (a.publishedAt.getTime() > cutoff) report.recent++;
    else if (await isReferenced(db, a.sha256)) report.referenced++;
    else {
      if (!opts.dryRun) {
        await store.backend.delete(a.sha256);
        await store.evict(a.sha256);
      }
      report.deleted.push(a);
      report.bytesFreed += a.size;
    }
  }
  return report;
}

/** Which rows reference each artifact (`crucible artifacts list`). */
export async function artifactReferences(db: Db): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (sha: string, what: string) => out.set(sha, [...(out.get(sha) ?? []), what]);
  for (const v of await db.select({ sha: policyVersions.sha256, runId: policyVersions.runId, version: policyVersions.version }).from(policyVersions)) {
    add(v.sha, `run ${v.runId ?? '?'} v${v.version}`);
  }
  for (const e of await db.select({ sha: environments.imageSha256, name: environments.name }).from(environments).where(isNotNull(environments.imageSha256))) {
    add(e.sha!, `environment ${e.name}`);
  }
  for (const m of await db.select({ name: models.name, files: models.files }).from(models)) {
    for (const f of m.files) add(f.sha256, `model ${m.name} ${f.path}`);
  }
  return out;
}
