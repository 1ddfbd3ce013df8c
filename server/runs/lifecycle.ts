import { and, desc, eq, sql } from 'drizzle-orm';
import { RL_QUEUES } from '@/core/queues';
import { isTerminal, nextStatus, refusal, RUN_TRANSITIONS, wakesLoop, type RunStatus, type RunTransition } from '@/core/run-status';
import { runEvents, runs } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { enqueueJob, type Tx } from '@/server/queue';

export type TransitionDetails = {
  /** The run event's message; by default "<transition> by <actor>". */
  message?: string;
  /** Extra data for the run event (the audit row gets from/to and this). */
  data?: Record<string, unknown>;
  /** Why the run failed, shown on the run (fail only). */
  error?: string;
  /**
   * false: do not enqueue the RL loop's advance job for the new status, because the caller is
   * that job and does the work itself (rl.advance starting a run it then prepares).
   */
  wake?: boolean;
};

/**
 * Enqueue the RL loop's advance job for a run that just became queued or running, in the
 * caller's transaction, so a committed run is always picked up (and an aborted one never
 * is). One job per run per transaction (the key names the transaction).
 */
export async function wakeRunLoop(tx: Tx, runId: string): Promise<void> {
  const [row] = await tx.execute<{ txid: string }>(sql`select txid_current()::text as txid`);
  if (!row) throw new Error('select txid_current() returned no row; is this a PostgreSQL database?');
  const txid = row.txid;
  await enqueueJob(tx, RL_QUEUES.advance, { runId }, { runId, idempotencyKey: `advance:${runId}:${txid}`, priority: 10, maxAttempts: 20 });
}

/**
 * The one place a run's status changes (creation aside). Locks the run row, checks the
 * transition against the state machine (core/run-status.ts), updates the row, records the
 * run event and the audit row, and enqueues the work the new status starts, all in the
 * caller's transaction: a rollback undoes every part, and two racing transitions cannot
 * both apply. Refused transitions throw a CONFLICT saying why; use `tryRunTransition` where
 * losing a race is expected (a worker finishing a run an operator just cancelled).
 *
 * `actor` is a user (`user:…`, `token:…`) for operator actions, `system:<queue>` for the RL loop.
 */
export async function applyRunTransition(tx: Tx, runId: string, transition: RunTransition, actor: string, details: TransitionDetails = {}) {
  const applied = await transitionOrRefusal(tx, runId, transition, actor, details);
  if (applied.kind === 'missing') throw new DomainError('NOT_FOUND', `no run ${runId}; list runs with \`crucible runs list\``);
  if (applied.kind === 'refused') throw new DomainError('CONFLICT', applied.reason);
  return applied.run;
}

/**
 * `applyRunTransition`, but a transition the run's current status does not allow (or a run
 * that no longer exists) is skipped: null, writing nothing.
 */
export async function tryRunTransition(tx: Tx, runId: string, transition: RunTransition, actor: string, details: TransitionDetails = {}) {
  const applied = await transitionOrRefusal(tx, runId, transition, actor, details);
  return applied.kind === 'applied' ? applied.run : null;
}

type Outcome = { kind: 'applied'; run: typeof runs.$inferSelect } | { kind: 'refused'; reason: string } | { kind: 'missing' };

async function transitionOrRefusal(tx: Tx, runId: string, transition: RunTransition, actor: string, details: TransitionDetails): Promise<Outcome> {
  const [current] = await tx.select({ status: runs.status }).from(runs).where(eq(runs.id, runId)).for('update');
  if (!current) return { kind: 'missing' };
  const from = current.status as RunStatus;
  const to = nextStatus(from, transition, transition === 'resume' ? await pausedFrom(tx, runId) : null);
  if (!to) return { kind: 'refused', reason: refusal(transition, from) };
  const now = new Date();
  const [run] = await tx
    .update(runs)
    .set({
      status: to,
      updatedAt: now,
      ...(transition === 'start' ? { startedAt: sql`coalesce(${runs.startedAt}, now())` } : {}),
      ...(isTerminal(to) ? { finishedAt: now } : {}),
      ...(details.error !== undefined ? { error: details.error.slice(0, 2000) } : {}),
    })
    .where(eq(runs.id, runId))
    .returning();
  await tx.insert(runEvents).values({
    runId,
    type: RUN_TRANSITIONS[transition].eventType,
    fromStatus: from,
    toStatus: to,
    actor,
    message: (details.message ?? `${transition} by ${actor}`).slice(0, 2000),
    data: details.data ?? {},
  });
  await appendAudit(tx, {
    actor,
    action: `run.${transition}`,
    targetType: 'run',
    targetId: runId,
    details: { from, to, ...(details.error ? { error: details.error.slice(0, 2000) } : {}) },
  });
  if (wakesLoop(to) && details.wake !== false) await wakeRunLoop(tx, runId);
  if (!run) throw new Error(`run ${runId} was locked but not updated`);
  return { kind: 'applied', run };
}

/** The status a paused run was paused from (its latest pause event). */
async function pausedFrom(tx: Tx, runId: string): Promise<RunStatus | null> {
  const [paused] = await tx
    .select({ fromStatus: runEvents.fromStatus })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.toStatus, 'paused')))
    .orderBy(desc(runEvents.id))
    .limit(1);
  return (paused?.fromStatus as RunStatus | null | undefined) ?? null;
}
