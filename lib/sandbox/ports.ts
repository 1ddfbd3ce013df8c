import type { Db } from '@/db/client';
import type { Environment } from './env/env-manifest';

/**
 * What the sandbox library needs from the platform around it, declared here so the library
 * imports nothing from server/ (issue 14). server/environments/ implements these against
 * Postgres (`sandboxRecords(db)`); without them the library and its CLI work standalone.
 */

/** One audit row: who did what to which target. */
export type AuditEntry = { actor: string; action: string; targetType: string; targetId?: string | null; details?: Record<string, unknown> };

/** Appends audit rows (the platform's hash-chained audit log). */
export interface AuditSink {
  append(entry: AuditEntry): Promise<void>;
}

/** The platform's record of environments (the baseline hashes the review view compares with). */
export interface EnvironmentRegistry {
  /** Add the environment's row if its name has none yet; an existing row is left alone. */
  register(env: Environment): Promise<void>;
  /** The baseline content hash recorded under `name` (what every host's build must match), if any. */
  baseline(name: string): Promise<string | undefined>;
  /** The published image of `name` (`crucible env publish`): its artifact and the baseline hash it must reproduce. */
  image(name: string): Promise<{ hash: string; imageSha256: string } | undefined>;
}

/** Fetches artifacts by sha256 into verified local files (the artifact store, lib/artifacts). */
export interface ArtifactFetcher {
  fetch(sha256: string): Promise<string>;
}

/** Asks whether new sandboxes may start on an environment. */
export interface QuarantineCheck {
  /** Why `env` may not be used (it, or its content hash, is quarantined), or undefined when it may. */
  quarantined(env: { name: string; hash: string }): Promise<string | undefined>;
}

/**
 * Everything a manager records when it has a database: audit rows, the `sandboxes` table the
 * resources view and leak sweeps read (written here through `db`), and the environment
 * registry and quarantine check consulted before each start. One object, so a caller cannot
 * hand over the database but forget the audit sink.
 */
export type SandboxRecords = {
  db: Db;
  audit: AuditSink;
  environments: EnvironmentRegistry;
  quarantine: QuarantineCheck;
  /** where published environment images are fetched from; without it a host builds from specs only */
  images?: ArtifactFetcher;
};
