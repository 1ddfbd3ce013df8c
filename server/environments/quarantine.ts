import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments } from '@/db/schema';
import { DomainError } from '@/server/errors';

/**
 * Why new sandboxes may not start on `env`: the environment named `name`, or any with
 * content hash `hash`, is quarantined. Undefined when it may start.
 */
export async function quarantineProblem(db: Db, env: { name?: string; hash?: string }): Promise<string | undefined> {
  const [q] = await db
    .select({ name: environments.name, reason: environments.quarantineReason })
    .from(environments)
    .where(sql`${environments.quarantinedAt} is not null and (${environments.name} = ${env.name ?? ''} or ${environments.contentHash} = ${env.hash ?? ''})`)
    .limit(1);
  if (!q) return undefined;
  return `environment "${q.name}" is quarantined (${q.reason ?? 'no reason given'}); an admin must clear it before new sandboxes start on it`;
}

/** Throws when `envHash` (or the environment named `name`) is quarantined: call before every sandbox start. */
export async function assertNotQuarantined(db: Db, env: { name?: string; hash?: string }): Promise<void> {
  const problem = await quarantineProblem(db, env);
  if (problem) throw new DomainError('PRECONDITION_FAILED', problem);
}
