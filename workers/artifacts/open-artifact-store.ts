import path from 'node:path';
import type { Settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { ArtifactStore, type ArtifactBackend } from './artifact-store';
import { LocalArtifactBackend } from './backends/local';

/** Which backend the settings choose: explicit, else the database when it is shared (`DATABASE_URL`), else this host's directory. */
export function artifactBackendName(s: Settings): 'local' | 'database' | 's3' {
  return s.CRUCIBLE_ARTIFACT_BACKEND ?? (s.DATABASE_URL ? 'database' : 'local');
}

/**
 * The artifact store a process uses, from settings: its backend and this host's cache under
 * `<dataDir>/artifacts/cache`. `db` is the process's database (the `database` backend's home).
 */
export function openArtifactStore(s: Settings, deps: { dataDir: string; db: Db }): ArtifactStore {
  const name = artifactBackendName(s);
  let backend: ArtifactBackend;
  switch (name) {
    case 'local':
      backend = new LocalArtifactBackend(path.resolve(s.CRUCIBLE_ARTIFACT_DIR ?? path.join(deps.dataDir, 'artifacts', 'store')));
      break;
    case 'database':
      throw new Error('the database artifact backend is not built yet'); // helper: DatabaseArtifactBackend
    case 's3':
      throw new Error('the s3 artifact backend is not built yet'); // helper: S3ArtifactBackend
  }
  return new ArtifactStore({ backend, cacheDir: path.join(deps.dataDir, 'artifacts', 'cache'), cacheBytes: s.CRUCIBLE_ARTIFACT_CACHE_MB * 1024 * 1024 });
}
