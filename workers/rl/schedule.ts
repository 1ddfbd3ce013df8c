import { and, asc, eq, sql } from 'drizzle-orm';
import { episodes, rewards, runEvents, runs, tasks } from '@/db/schema';
import { enqueueJob, type Tx } from '@/server/queue';
import type { RunConfig } from '@/core/run-config';
import { groupHasSignal } from '@/lib/policy/advantages';
import { RL_QUEUES } from '@/core/queues';
import { prng } from '@/core/random';

/** Fisher–Yates shuffle in place with a seeded source; returns the array. */
export function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The seed of one episode slot: same run seed → same slots → same tokens. */
export const episodeSeed = (seed: number, iteration: number, group: number, sample: number) =>
  (Math.imul(seed + 1, 0x9e3779b1) ^ Math.imul(iteration + 1, 0x85ebca6b) ^ Math.imul(group + 1, 0xc2b2ae35) ^ ((sample + 1) * 2654435761)) >>> 0;

/** The iteration's seeded task order over the train split (same seed → same order). */
async function taskOrder(tx: Tx, run: { suiteId: string | null; config: RunConfig }, iteration: number): Promise<string[]> {
  const all = await tx
    .select({ id: tasks.id, externalId: tasks.externalId })
    .from(tasks)
    .where(and(eq(tasks.suiteId, run.suiteId!), eq(tasks.split, 'train')))
    .orderBy(asc(tasks.externalId));
  if (!all.length) throw new Error('the suite has no train tasks');
  // a curriculum (config.trainTasks) narrows the order; configs from before it have none
  const only = run.config.trainTasks ?? [];
  const train = only.length ? all.filter((t) => only.includes(t.externalId)) : all;
  const missing = only.filter((id) => !all.some((t) => t.externalId === id));
  if (missing.length)
    throw new Error(
      `trainTasks names ${missing.join(', ')}, not in the suite's train split (was the suite re-imported?); clone the run with existing task ids`,
    );
  const rand = prng(run.config.seed * 7919 + iteration);
  return shuffle(
    train.map((t) => t.id),
    rand,
  );
}

/** Create episode rows for groups [from, from + count) of an iteration (group g = task order[g], group size samples). Idempotent. */
export async function createGroups(tx: Tx, run: { id: string; suiteId: string | null; config: RunConfig }, iteration: number, from: number, count: number) {
  const order = await taskOrder(tx, run, iteration);
  const rows = [];
  for (let g = from; g < from + count; g++) {
    for (let s = 0; s < run.config.groupSize; s++) {
      rows.push({ runId: run.id, taskId: order[g % order.length]!, iteration, groupIndex: g, sampleIndex: s });
    }
  }
  if (rows.length) await tx.insert(episodes).values(rows).onConflictDoNothing();
}

/** Create an iteration's episode rows (tasks × group size from the train split, seeded). Idempotent. */
export const createIteration = (tx: Tx, run: { id: string; suiteId: string | null; config: RunConfig }, iteration: number) =>
  createGroups(tx, run, iteration, 0, run.config.tasksPerIteration);

/**
 * Dynamic sampling: how many extra groups to sample for an iteration whose finished
 * groups with reward variance (the only ones that carry a GRPO signal) fall short of
 * tasksPerIteration, within maxGroupsFactor × tasksPerIteration groups in all.
 */
export async function extraGroupsNeeded(tx: Tx, run: { id: string; config: RunConfig }, iteration: number): Promise<{ from: number; count: number }> {
  const ds = run.config.dynamicSampling;
  if (!ds.enabled) return { from: 0, count: 0 };
  const rows = await tx
    .select({ g: episodes.groupIndex, value: rewards.value })
    .from(episodes)
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(and(eq(episodes.runId, run.id), eq(episodes.iteration, iteration)));
  const groups = new Map<number, number[]>();
  for (const r of rows) {
    const list = groups.get(r.g) ?? [];
    if (r.value != null) list.push(r.value);
    groups.set(r.g, list);
  }
  // the learner's test (a std below MIN_GROUP_STD gives zero advantages), so both agree
  const withSignal = [...groups.values()].filter((v) => groupHasSignal(v)).length;
  const total = groups.size === 0 ? 0 : Math.max(...groups.keys()) + 1;
  const cap = Math.ceil(run.config.tasksPerIteration * ds.maxGroupsFactor);
  const count = Math.max(0, Math.min(run.config.tasksPerIteration - withSignal, cap - total));
  return { from: total, count };
}

/**
 * Keep `concurrency` episode jobs of the current iteration in flight; when none is
 * pending or running, enqueue the iteration's learner job. Runs in the transaction of
 * whatever changed the run's state (start, an episode's completion, a learner step,
 * resume), under the run's row lock, so concurrent completions cannot overshoot.
 */
export async function topUp(tx: Tx, runId: string): Promise<void> {
  const [run] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
  if (!run || run.status !== 'running') return;
  const iteration = run.currentIteration;
  if (iteration >= run.config.iterations) return;
  const counts = await tx
    .select({ status: episodes.status, n: sql<number>`count(*)::int` })
    .from(episodes)
    .where(and(eq(episodes.runId, runId), eq(episodes.iteration, iteration)))
    .groupBy(episodes.status);
  const n = (s: string) => counts.find((c) => c.status === s)?.n ?? 0;
  if (!counts.length) {
    await createIteration(tx, run, iteration);
    return topUp(tx, runId);
  }
  const pending = n('pending');
  const running = n('running');
  if (pending === 0 && running === 0) {
    const extra = await extraGroupsNeeded(tx, run, iteration);
    if (extra.count > 0) {
      await createGroups(tx, run, iteration, extra.from, extra.count);
      await tx
        .update(runs)
        .set({ episodesTotal: sql`${runs.episodesTotal} + ${extra.count * run.config.groupSize}` })
        .where(eq(runs.id, runId));
      await runEvent(tx, runId, 'dynamic_sampling', `iteration ${iteration}: ${extra.count} more group(s) sampled; too few groups had differing rewards`, {
        iteration,
        from: extra.from,
        count: extra.count,
      });
      return topUp(tx, runId);
    }
    await enqueueJob(
      tx,
      RL_QUEUES.learn,
      { runId, iteration },
      {
        runId,
        idempotencyKey: `learn:${runId}:${iteration}`,
        priority: 20,
        maxAttempts: 10,
      },
    );
    return;
  }
  const free = run.config.concurrency - running;
  if (free <= 0 || pending === 0) return;
  const next = await tx
    .select({ id: episodes.id, g: episodes.groupIndex, s: episodes.sampleIndex, attempt: episodes.attempt })
    .from(episodes)
    .where(and(eq(episodes.runId, runId), eq(episodes.iteration, iteration), eq(episodes.status, 'pending')))
    .orderBy(asc(episodes.groupIndex), asc(episodes.sampleIndex))
    .limit(free);
  for (const e of next) {
    await tx.update(episodes).set({ status: 'running' }).where(eq(episodes.id, e.id));
    await enqueueJob(
      tx,
      RL_QUEUES.episode,
      { runId, episodeId: e.id },
      {
        runId,
        priority: run.config.priority,
        // run:iteration:group:sample (+ attempt, so an infra retry is a new job)
        idempotencyKey: `${runId}:${iteration}:${e.g}:${e.s}:${e.attempt}`,
      },
    );
  }
}

export async function runEvent(tx: Tx, runId: string, type: string, message: string, data: Record<string, unknown> = {}) {
  await tx.insert(runEvents).values({ runId, type, actor: 'system:rl', message, data });
}
