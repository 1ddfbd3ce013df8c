import fs from 'node:fs';
import path from 'node:path';
import { JOB_QUEUES } from '@/core/queues';
import type { Db } from '@/db/client';
import { dataDir, envStoreDir } from '@/db/open-database';
import { eq } from 'drizzle-orm';
import { diagnoses, episodes, rewards, runs, tasks } from '@/db/schema';
import { assertNotQuarantined } from '@/server/environments/quarantine';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import type { TaskTests } from '@/core/tasks';
import type { JobEffect } from '@/server/queue';
import { jobHandler, PermanentJobError } from '@/workers/jobs/job-handler';
import { scoringOptions } from '@/workers/rl/reward/scoring-options';
import { taskKind } from '@/workers/rl/task-kinds/registry';
import type { Rescore } from '@/workers/rl/task-kinds/task-kind';
import { rlSettings, settings } from '@/core/settings';
import { hashHex } from '@/lib/sandbox/env/env-manifest';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

let manager: SandboxManager | undefined;
// environments another host published are fetched by hash (the artifact store) rather than rebuilt here
const sandboxes = (db: Db) =>
  (manager ??= new SandboxManager({
    dataDir: dataDir(),
    storeDir: envStoreDir(),
    runtime: runtimeOptions(settings()),
    records: sandboxRecords(db, { images: openArtifactStore(settings(), { dataDir: dataDir(), db }) }),
    actor: 'system:diagnosis',
  }));

export type RerunSummary = Omit<Rescore, 'status'> & {
  label: string;
  status: Rescore['status'] | 'unavailable' | 'quarantined';
};

const missing = (label: string, status: RerunSummary['status'], envHash: string | null, note: string): RerunSummary => ({
  label,
  status,
  reward: null,
  components: null,
  envHash,
  runtime: null,
  tests: [],
  note,
});

/**
 * The scored environment by its hash. The store keeps every built hash; a name points
 * at one of them. To run on an older hash, give it an alias ref of its own (same
 * format as the store's refs) so the sandbox manager verifies and mounts it as usual.
 */
function aliasForHash(storeDir: string, envHash: string): string | null {
  const hex = hashHex(envHash);
  if (!/^[0-9a-f]{64}$/.test(hex) || !fs.existsSync(path.join(storeDir, hex, 'meta.json'))) return null;
  const name = `hash-${hex.slice(0, 16)}`;
  const ref = path.join(storeDir, 'refs', `${name}.json`);
  if (!fs.existsSync(ref)) fs.writeFileSync(ref, JSON.stringify({ name, hash: envHash.startsWith('sha256:') ? envHash : `sha256:${hex}` }));
  return name;
}

/**
 * The scoring options a diagnosis re-runs under: the episode's own (the run's limits,
 * timeouts and weights, from the one builder episodes and held-out evaluation use) on the
 * runtime the episode recorded, never defaults.
 */
export function diagnosisScoring(
  run: Parameters<typeof scoringOptions>[0],
  task: Parameters<typeof scoringOptions>[1],
  episode: { runtime: string | null },
  s: Parameters<typeof scoringOptions>[2],
) {
  return scoringOptions(run, task, s, { runtime: episode.runtime });
}
/**
 * A disputed verdict's diagnosis: re-run the episode's final code on the baseline
 * environment (hash-verified before start) and on the environment it was scored in,
 * and store both results side by side. A repository episode's graded patch is re-graded
 * (./diagnose-repo.ts).
 */
// enqueued by server/reviews/verdicts.ts when a reviewer disputes a reward
export const diagnoseHandler = jobHandler(JOB_QUEUES.reviewDiagnose, {
  leaseMs: 120_000,
  run: async (job, ctx) => {
    const { diagnosisId } = job.payload;
    const [row] = await ctx.db
      .select({ d: diagnoses, e: episodes, t: tasks, envHash: rewards.envHash, config: runs.config })
      .from(diagnoses)
      .innerJoin(episodes, eq(episodes.id, diagnoses.episodeId))
      .innerJoin(runs, eq(runs.id, episodes.runId))
      .leftJoin(tasks, eq(tasks.id, episodes.taskId))
      .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
      .where(eq(diagnoses.id, diagnosisId));
    if (!row) throw new PermanentJobError(`no diagnosis ${diagnosisId}`);
    const fail =
      (error: string): JobEffect =>
      async (tx) => {
        await tx.update(diagnoses).set({ status: 'failed', error, finishedAt: new Date() }).where(eq(diagnoses.id, diagnosisId));
      };
    if (!row.t) return fail('the episode has no task to re-run against');
    // the episode's answer (final code, text or graded patch) re-scored as its kind scored it (workers/rl/task-kinds)
    const rescorer = await taskKind(row.t.kind).rescorer({ db: ctx.db, episode: row.e, task: row.t });
    if (typeof rescorer === 'string') return fail(rescorer);
    const m = sandboxes(ctx.db);
    // the episode's own scoring options (limits, timeouts, weights, budget) on the runtime it recorded
    const scoring = diagnosisScoring({ config: row.config }, { ...row.t, tests: row.t.tests as TaskTests }, row.e, rlSettings(settings()));
    const baselineName = rescorer.baselineEnv ?? scoring.sandbox.env;

    const rerun = async (label: string, envName: string, envHash: string | null): Promise<RerunSummary> => {
      try {
        await assertNotQuarantined(ctx.db, { name: envName, hash: envHash ?? undefined });
      } catch (e) {
        return missing(label, 'quarantined', envHash, (e as Error).message);
      }
      return { label, ...(await rescorer.rescore(envName, { manager: m, scoring, context: { runId: row.e.runId, episodeId: row.e.id } })) };
    };
    const baseline = await rerun('baseline', baselineName, null);
    let scored: RerunSummary;
    if (!row.envHash) scored = missing('scored', 'unavailable', null, 'the episode has no reward, so no scored environment');
    else if (baseline.envHash === row.envHash)
      scored = {
        ...(await rerun('scored', baselineName, row.envHash)),
        note: 'scored on the baseline environment itself (same hash): a second run checks for flakiness',
      };
    else {
      const alias = aliasForHash(m.storeDir, row.envHash);
      scored = alias
        ? await rerun('scored', alias, row.envHash)
        : missing('scored', 'unavailable', row.envHash, `environment ${row.envHash} is no longer in the store`);
    }
    return async (tx) => {
      await tx.update(diagnoses).set({ status: 'done', baseline, scored, finishedAt: new Date() }).where(eq(diagnoses.id, diagnosisId));
      return { baseline: baseline.status, scored: scored.status };
    };
  },
  close: async () => {
    await manager?.close();
    manager = undefined;
  },
});
