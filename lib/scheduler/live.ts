import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { capacityResources, type NodeCapacity, type Resources } from '@/core/resources';
import { JOBS_CHANNEL, PREEMPT_CHANNEL } from '@/core/queues';
import { must } from '@/core/must';
import { schedule } from './core';
import type { NodeInfo, PendingWorkload, RunningWorkload, SchedulerConfig, SchedulingResult } from './types';

// The live scheduler's pass over the database: read the state (nodes from `workers`,
// workloads from `jobs`), call the same pure `schedule()` the simulator runs, and apply its
// decisions in one transaction. Every write is a compare-and-set on the row's state, so a
// decision taken on a state that changed meanwhile (a job finished, a node stopped it)
// applies nothing; two schedulers would not corrupt anything, and the leader lock in
// `scheduler-loop.ts` keeps it to one anyway.

export type LiveState = {
  now: number;
  nodes: NodeInfo[];
  pending: PendingWorkload[];
  running: RunningWorkload[];
  /** queue name per job id, to wake that queue's workers on admission */
  queueOf: Map<string, string>;
  /** run id per job id (jobs of a run get run events) */
  runOf: Map<string, string>;
  /** admitted jobs not claimed yet: a preemption just withdraws the admission */
  notStarted: Set<string>;
};

const ZERO_REQUEST: Resources = { cpu: 0, memoryMb: 0, gpu: 0, gpuMemoryMb: 0, diskMb: 0 };
const ms = (v: unknown): number => (v instanceof Date ? v.getTime() : new Date(String(v)).getTime());

/** Load the scheduler's view. All times come from the database clock, like the queue's. */
export async function loadState(db: Db, opts: { nodeWindowMs?: number } = {}): Promise<LiveState> {
  const window = opts.nodeWindowMs ?? 3_600_000;
  const [clock] = await db.execute<{ now: string }>(sql`select now() as now`);
  const now = ms(must(clock, 'a row from `select now()`').now);
  // A node is the newest registration of each name; its heartbeat the newest of its processes.
  // Lost rows count (maintenance may mark a stalled node lost before its lease is up here).
  const nodeRows = await db.execute<{ node: string; capacity: NodeCapacity; heartbeat_at: string }>(sql`
    select node, (array_agg(capacity order by heartbeat_at desc))[1] as capacity, max(heartbeat_at) as heartbeat_at
    from workers
    where node is not null and status in ('running', 'lost') and heartbeat_at > now() - ${window} * interval '1 millisecond'
    group by node`);
  const nodes: NodeInfo[] = nodeRows.map((r) => ({ id: r.node, capacity: capacityResources(r.capacity), heartbeatAt: ms(r.heartbeat_at) }));

  const rows = await db.execute<{
    id: string;
    queue: string;
    run_id: string | null;
    tier: string;
    workload_queue: string | null;
    priority: number;
    request: Resources;
    state: string;
    admitted_node: string | null;
    created_at: string;
    queued_at: string;
    run_after: string;
    preemptions: number;
    started_at: string | null;
    admitted_at: string | null;
    preempted_at: string | null;
    handed_over: boolean;
  }>(sql`
    select j.id::text, j.queue, j.run_id, j.tier, j.workload_queue, j.priority, j.request, j.state::text, j.admitted_node, j.created_at,
      j.queued_at, j.run_after, j.preemptions, j.started_at, j.admitted_at, j.preempted_at,
      coalesce(p.admitted_node = j.admitted_node, false) as handed_over
    from jobs j left join jobs p on p.id = j.preempted_by and j.preempted_at is not null and p.state in ('queued', 'running')
    where j.tier is not null and j.state in ('queued', 'running') and (j.admitted_node is not null or j.state = 'queued')`);
  const pending: PendingWorkload[] = [];
  const running: RunningWorkload[] = [];
  const queueOf = new Map<string, string>();
  const runOf = new Map<string, string>();
  const notStarted = new Set<string>();
  for (const r of rows) {
    queueOf.set(r.id, r.queue);
    if (r.run_id) runOf.set(r.id, r.run_id);
    const base = {
      id: r.id,
      // Fair sharing is between runs; jobs without a run share per queue.
      runId: r.run_id ?? `queue:${r.queue}`,
      tier: r.tier,
      queue: r.workload_queue ?? undefined,
      priority: r.priority,
      request: { ...ZERO_REQUEST, ...(r.request as Partial<Resources>) },
      createdAt: ms(r.created_at),
    };
    // A victim whose preemptor is admitted to its node: its share of the node (and quota) is
    // already the preemptor's, which cannot start before it stops. Counting both would make the
    // next decisions evict more than needed while it shuts down.
    if (r.handed_over) continue;
    if (r.admitted_node === null) {
      pending.push({ ...base, queuedAt: ms(r.queued_at), notBefore: ms(r.run_after), preemptions: r.preemptions });
    } else {
      if (r.state === 'queued') notStarted.add(r.id);
      running.push({
        ...base,
        nodeId: r.admitted_node,
        // Admitted but not claimed yet: it holds its node from the admission on.
        startedAt: ms(r.started_at ?? r.admitted_at ?? r.created_at),
        evicting: r.preempted_at !== null,
        preemptions: r.preemptions,
      });
    }
  }
  return { now, nodes, pending, running, queueOf, runOf, notStarted };
}

export type Applied = { admitted: number; preempted: number; requeued: number; forced: number; swept: number; skipped: number };

/**
 * Apply one pass's decisions. Admissions first set the node (workers of that node may then
 * claim, once the victims are stopped); preemptions mark running victims (their worker stops
 * them via ctx.signal and re-queues them) or withdraw an admission not yet claimed;
 * requeues send a lost node's work back, clearing the lease token so a late write from the
 * lost node is fenced.
 */
export async function applyResult(db: Db, state: LiveState, result: SchedulingResult, opts: { evictGraceMs: number }): Promise<Applied> {
  const out: Applied = { admitted: 0, preempted: 0, requeued: 0, forced: 0, swept: 0, skipped: 0 };
  const victimsOf = new Map(result.preemptions.map((p) => [p.workloadId, p]));
  await db.transaction(async (tx) => {
    const wake = new Set<string>();
    const events: { runId: string; type: string; message: string; data: Record<string, unknown> }[] = [];
    for (const p of result.preemptions) {
      const id = Number(p.workloadId);
      const reason = `${p.reason}: ${p.message}`;
      const retryAt = new Date(p.retryAt).toISOString();
      let rows: unknown[];
      if (state.notStarted.has(p.workloadId)) {
        rows = await tx.execute(sql`
          update jobs set admitted_node = null, admitted_at = null, borrowing = false, queued_at = now(), run_after = ${retryAt}::timestamptz,
            preemptions = ${p.preemptions}, last_requeue_reason = ${reason}, updated_at = now()
          where id = ${id} and state = 'queued' and admitted_node = ${p.nodeId} returning id`);
        if (rows.length === 0) {
          // Claimed meanwhile: stop it like any running victim.
          rows = await markPreempted(tx, id, p.byWorkloadId, p.preemptions, reason, retryAt);
        }
      } else {
        rows = await markPreempted(tx, id, p.byWorkloadId, p.preemptions, reason, retryAt);
      }
      if (rows.length === 0) {
        out.skipped++;
        continue;
      }
      out.preempted++;
      const run = state.runOf.get(p.workloadId);
      if (run)
        events.push({
          runId: run,
          type: 'job.preempted',
          message: `job ${id} ${reason}`,
          data: { jobId: id, by: Number(p.byWorkloadId), reason: p.reason, retryAt },
        });
    }
    // One statement for all admissions (a burst can admit thousands); each row is still a CAS.
    const admissions = result.admissions
      .filter((a) => !a.preempts.some((v) => !victimsOf.has(v))) // a victim not marked: next pass
      .map((a) => ({ id: Number(a.workloadId), node: a.nodeId, borrowing: a.borrowing }));
    out.skipped += result.admissions.length - admissions.length;
    if (admissions.length > 0) {
      const rows = await tx.execute<{ queue: string }>(sql`
        update jobs j set admitted_node = v.node, admitted_at = now(), borrowing = v.borrowing, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(admissions)}::jsonb) as v(id bigint, node text, borrowing boolean)
        where j.id = v.id and j.state = 'queued' and j.admitted_node is null and j.tier is not null and j.run_after <= now()
        returning j.queue`);
      out.admitted += rows.length;
      out.skipped += admissions.length - rows.length;
      for (const r of rows) wake.add(r.queue);
    }
    if (result.requeues.length > 0) {
      const lost = result.requeues.map((r) => ({ id: Number(r.workloadId), node: r.nodeId, reason: `node-lost: ${r.message}` }));
      const rows = await tx.execute<{ id: string; node: string }>(sql`
        update jobs j set
          state = case when j.state = 'running' and j.attempts >= j.max_attempts then 'dead'::job_state else 'queued'::job_state end,
          finished_at = case when j.state = 'running' and j.attempts >= j.max_attempts then now() else null end,
          admitted_node = null, admitted_at = null, borrowing = false, lease_owner = null, lease_token = null, lease_expires_at = null,
          started_at = null, preempted_at = null, preempted_by = null, queued_at = now(), run_after = now(),
          last_requeue_reason = v.reason, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(lost)}::jsonb) as v(id bigint, node text, reason text)
        where j.id = v.id and j.admitted_node = v.node and j.state in ('queued', 'running')
        returning j.id::text, v.node`);
      out.requeued += rows.length;
      out.skipped += lost.length - rows.length;
      for (const r of rows) {
        const run = state.runOf.get(r.id);
        if (run)
          events.push({ runId: run, type: 'job.requeued', message: `job ${r.id} re-queued: node ${r.node} lost`, data: { jobId: Number(r.id), node: r.node } });
      }
    }
    // A victim whose worker never stopped it (hung, or its node is partitioned but heartbeats):
    // take it back after the grace period; clearing the token fences whatever it does next.
    const forced = await tx.execute(sql`
      update jobs set state = 'queued', attempts = greatest(attempts - 1, 0), admitted_node = null, admitted_at = null, borrowing = false,
        lease_owner = null, lease_token = null, lease_expires_at = null, started_at = null, preempted_at = null, preempted_by = null,
        queued_at = now(), last_requeue_reason = coalesce(last_requeue_reason, 'preempted') || ' (not stopped within ' || ${opts.evictGraceMs} || ' ms: taken back)',
        updated_at = now()
      where tier is not null and state = 'running' and preempted_at < now() - ${opts.evictGraceMs} * interval '1 millisecond' returning id`);
    out.forced = forced.length;
    // Claimed while no scheduler ran (no admission) and then abandoned: back to the queue.
    const swept = await tx.execute(sql`
      update jobs set state = 'queued', lease_owner = null, lease_token = null, lease_expires_at = null, started_at = null, queued_at = now(),
        last_requeue_reason = 'lease expired before the scheduler admitted it', updated_at = now()
      where tier is not null and state = 'running' and admitted_node is null and lease_expires_at < now() returning id`);
    out.swept = swept.length;
    for (const e of events) {
      await tx.execute(
        sql`insert into run_events (run_id, type, actor, message, data) values (${e.runId}, ${e.type}, 'system:scheduler', ${e.message}, ${JSON.stringify(e.data)}::jsonb)`,
      );
    }
    // Delivered at commit: nodes stop their victims, idle workers claim their admissions.
    for (const p of result.preemptions) if (!state.notStarted.has(p.workloadId)) await tx.execute(sql`select pg_notify(${PREEMPT_CHANNEL}, ${p.workloadId})`);
    for (const q of wake) await tx.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${q})`);
  });
  return out;
}

function markPreempted(tx: Parameters<Parameters<Db['transaction']>[0]>[0], id: number, by: string, n: number, reason: string, retryAt: string) {
  return tx.execute(sql`
    update jobs set preempted_at = now(), preempted_by = ${Number(by)}, preemptions = ${n}, last_requeue_reason = ${reason},
      run_after = ${retryAt}::timestamptz, updated_at = now()
    where id = ${id} and state = 'running' and preempted_at is null returning id`);
}

export type PassReport = { state: LiveState; result: SchedulingResult; applied: Applied; ms: { load: number; decide: number; apply: number } };

/** One live pass: load, decide with the pure core, apply. */
export async function livePass(db: Db, config: (state: LiveState) => SchedulerConfig, opts: { evictGraceMs: number }): Promise<PassReport> {
  const t0 = performance.now();
  const state = await loadState(db);
  const t1 = performance.now();
  const result = schedule({ now: state.now, nodes: state.nodes, pending: state.pending, running: state.running, config: config(state) });
  const t2 = performance.now();
  const applied = await applyResult(db, state, result, opts);
  const t3 = performance.now();
  return { state, result, applied, ms: { load: t1 - t0, decide: t2 - t1, apply: t3 - t2 } };
}
