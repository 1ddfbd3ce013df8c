import path from 'node:path';
import type { Settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { ArtifactStore, type ArtifactBackend } from './artifact-store';
import { DatabaseArtifactBackend } from './backends/database';
import { LocalArtifactBackend } from './backends/local';
import { S3ArtifactBackend, s3OptionsFromSettings } from './backends/s3';
import { nodeName } from '@/lib/scheduler/node';

/** Which backend the settings choose: explicit, else the database when it is shared (`DATABASE_URL`), else this host's directory. */
export function artifactBackendName(s: Settings): 'local' | 'database' | 's3' {
  return s.CRUCIBLE_ARTIFACT_BACKEND ?? (s.DATABASE_URL ? 'database' : 'local');
}

/**
 * The artifact store a process uses, from settings: its backend and this host's cache under
 * `<dataDir>/artifacts/cache`. `db` is the process's database (the `database` backend's home);
 * `log` hears the store's notable events (a corrupt cached copy dropped and fetched again).
 */
export function openArtifactStore(s: Settings, deps: { dataDir: string; db: Db; log?: (line: string) => void }): ArtifactStore {
  const name = artifactBackendName(s);
  let backend: ArtifactBackend;
  switch (name) {
    case 'local':
      backend = new LocalArtifactBackend(path.resolve(s.CRUCIBLE_ARTIFACT_DIR ?? path.join(deps.dataDir, 'artifacts', 'store')));
      break;
    case 'database':
      backend = new DatabaseArtifactBackend(deps.db, { host: nodeName(s) });
      break;
    case 's3':
      backend = new S3ArtifactBackend(s3OptionsFromSettings(s));
      break;
  }
  return new ArtifactStore({
    backend,
    cacheDir: path.join(deps.dataDir, 'artifacts', 'cache'),
    cacheBytes: s.CRUCIBLE_ARTIFACT_CACHE_MB * 1024 * 1024,
    log: deps.log,
  });
}
