import { existsSync } from 'node:fs';
import path from 'node:path';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { appendAudit } from '@/server/audit/service';
import { dataDir } from '@/workers/sandbox/env/env-store';
import type { SandboxRecords } from '@/workers/sandbox/ports';
import { quarantineProblem } from './quarantine';
import { registerEnvironment } from './registry';

/**
 * The sandbox library's ports (workers/sandbox/ports.ts) over this database: audit rows in
 * the hash-chained log, environment rows, the quarantine check. Every process that gives a
 * SandboxManager a database passes `sandboxRecords(db)`.
 */
export function sandboxRecords(db: Db): SandboxRecords {
  return {
    db,
    audit: { append: async (entry) => void (await appendAudit(db, entry)) },
    environments: { register: (env) => registerEnvironment(db, env) },
    quarantine: { quarantined: (env) => quarantineProblem(db, env) },
  };
}

/**
 * The database when one is already there (DATABASE_URL, or a running Crucible's
 * runtime.json); sandbox commands never start an embedded server just to audit.
 */
export async function reachableDatabase(): Promise<Db | undefined> {
  if (!settings().DATABASE_URL && !existsSync(path.join(dataDir(), 'runtime.json'))) return undefined;
  try {
    // loaded only when a database is there: sandbox commands without one stay light
    const { cliDatabase } = await import('@/server/cli/database');
    return (await cliDatabase()).db;
  } catch {
    return undefined;
  }
}
