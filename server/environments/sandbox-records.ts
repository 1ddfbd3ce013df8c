import type { Db } from '@/db/client';
import { appendAudit } from '@/server/audit/service';
import type { ArtifactFetcher, SandboxRecords } from '@/lib/sandbox/ports';
import { quarantineProblem } from './quarantine';
import { baselineHash, environmentImage, registerEnvironment } from './registry';

/**
 * The sandbox library's ports (lib/sandbox/ports.ts) over this database: audit rows in
 * the hash-chained log, environment rows, the quarantine check. Every process that gives a
 * SandboxManager a database passes `sandboxRecords(db)`; workers also pass the artifact store
 * (`images`) so an environment published by another host is fetched rather than rebuilt.
 */
export function sandboxRecords(db: Db, opts: { images?: ArtifactFetcher } = {}): SandboxRecords {
  return {
    db,
    audit: { append: async (entry) => void (await appendAudit(db, entry)) },
    environments: { register: (env) => registerEnvironment(db, env), baseline: (name) => baselineHash(db, name), image: (name) => environmentImage(db, name) },
    quarantine: { quarantined: (env) => quarantineProblem(db, env) },
    images: opts.images,
  };
}
