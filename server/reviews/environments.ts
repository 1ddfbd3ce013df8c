import { desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { environments } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { environmentNameProblem } from '@/core/environments';
import { DomainError } from '@/server/errors';

export async function listEnvironments(db: Db) {
  return db.select().from(environments).orderBy(desc(environments.flaggedAt), environments.name);
}

/** A quarantined environment gets no new sandbox starts until an admin clears it. */
export async function setQuarantine(db: Db, name: string, on: boolean, actor: string, reason?: string) {
  const problem = environmentNameProblem(name);
  if (problem) throw new DomainError('BAD_REQUEST', problem);
  return db.transaction(async (tx) => {
    const [env] = await tx.select().from(environments).where(eq(environments.name, name));
    if (!env) throw new DomainError('NOT_FOUND', `no environment "${name}"`);
    const [row] = await tx
      .update(environments)
      .set(
        on
          ? { quarantinedAt: new Date(), quarantineReason: reason ?? env.flagReason ?? 'quarantined by an admin' }
          : { quarantinedAt: null, quarantineReason: null, flaggedAt: null, flagReason: null },
      )
      .where(eq(environments.id, env.id))
      .returning();
    await appendAudit(tx, {
      actor,
      action: on ? 'environment.quarantine' : 'environment.clear',
      targetType: 'environment',
      targetId: name,
      details: { hash: env.contentHash, reason: reason ?? null },
    });
    return row!;
  });
}
