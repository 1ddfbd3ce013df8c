import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';
import { rlSettings, type RlSettings, type Settings } from '@/core/settings';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import type { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { nodeName } from '@/lib/scheduler/node';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { releasePolicies, type CheckpointSource } from './policy-store';

/** What the RL handlers need from their process besides settings. */
export type RlDeps = {
  /** the worker's data directory: policy checkpoints (policies/<run>/) and sandbox state */
  dataDir: string;
  /** the environment store (default: CRUCIBLE_ENV_STORE, else <dataDir>/envs) */
  envStore?: string;
};

/**
 * What the three RL jobs share in one worker process: settings, this host's name, and the
 * process-wide resources opened on first use (the artifact store, the sandbox pool), closed once
 * by `close`. Nothing is read from the environment here.
 */
export type RlContext = {
  settings: Settings;
  rl: RlSettings;
  dataDir: string;
  host: string;
  /** the artifact store the settings choose, and this host's cache of it */
  artifacts(db: Db): ArtifactStore;
  /** checkpoints by hash */
  checkpoints(db: Db): CheckpointSource;
  /** the sandbox pool; environments another host published are fetched by hash rather than rebuilt here */
  sandboxes(db: Db): SandboxManager;
  close(): Promise<void>;
};

export function createRlContext(settings: Settings, deps: RlDeps): RlContext {
  let store: ArtifactStore | undefined;
  let manager: SandboxManager | undefined;
  const artifacts = (db: Db) => (store ??= openArtifactStore(settings, { dataDir: deps.dataDir, db }));
  return {
    settings,
    rl: rlSettings(settings),
    dataDir: deps.dataDir,
    host: nodeName(settings),
    artifacts,
    checkpoints: (db) => ({ store: artifacts(db), dataDir: deps.dataDir, db }),
    sandboxes: (db) =>
      (manager ??= new SandboxManager({
        dataDir: deps.dataDir,
        storeDir: deps.envStore ?? storeDirFor(deps.dataDir, settings.CRUCIBLE_ENV_STORE),
        runtime: runtimeOptions(settings),
        records: sandboxRecords(db, { images: artifacts(db) }),
        actor: 'system:rl',
      })),
    close: async () => {
      await releasePolicies();
      await manager?.close();
      await store?.close();
      store = undefined;
      manager = undefined;
    },
  };
}

export async function loadRun(db: Db, runId: string) {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) throw new PermanentJobError(`no run ${runId}`);
  return run;
}
export type RunRow = Awaited<ReturnType<typeof loadRun>>;
