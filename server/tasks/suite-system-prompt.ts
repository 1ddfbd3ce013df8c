import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { taskSuites, tasks } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';

/**
 * A repository suite's system prompt for the agent (task_suites.system_prompt): the prompt of
 * every run on the suite that sets none of its own (run config `agentSystemPrompt` wins; neither:
 * Crucible's default for the tool-call format, lib/agent/episode/system-prompt.ts). Set at import
 * or later; null clears it.
 */

/** The same bounds as a run's agentSystemPrompt. */
export const suiteSystemPrompt = z.string().trim().min(1, 'the system prompt is empty: pass null to clear it').max(20_000);

/** The prompt an agent on `suiteId`'s tasks gets from its suite, or null. */
export async function loadSuiteSystemPrompt(db: DbOrTx, suiteId: string | null): Promise<string | null> {
  if (!suiteId) return null;
  const [row] = await db.select({ p: taskSuites.systemPrompt }).from(taskSuites).where(eq(taskSuites.id, suiteId));
  return row?.p ?? null;
}

/** The suite prompt of the suite a task belongs to, or null. */
export async function taskSuiteSystemPrompt(db: DbOrTx, taskId: string): Promise<string | null> {
  const [row] = await db.select({ p: taskSuites.systemPrompt }).from(tasks).innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId)).where(eq(tasks.id, taskId));
  return row?.p ?? null;
}

/** Set (or clear, with null) a suite's system prompt, with its audit row, in one transaction. */
export async function setSuiteSystemPrompt(
  db: DbOrTx,
  suite: string,
  prompt: string | null,
  actor: string,
): Promise<{ suite: string; systemPrompt: string | null }> {
  const value = prompt === null ? null : suiteSystemPrompt.parse(prompt);
  return db.transaction(async (tx) => {
    const [row] = await tx.update(taskSuites).set({ systemPrompt: value }).where(eq(taskSuites.name, suite)).returning({ id: taskSuites.id });
    if (!row) throw new DomainError('NOT_FOUND', `no task suite "${suite}"`);
    await appendAudit(tx, {
      actor,
      action: 'tasks.suite_system_prompt',
      targetType: 'task_suite',
      targetId: row.id,
      details: { suite, systemPrompt: value === null ? null : { characters: value.length } },
    });
    return { suite, systemPrompt: value };
  });
}
