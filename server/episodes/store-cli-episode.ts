import { desc, eq, sql } from 'drizzle-orm';
import { EPISODE_RUN_ORIGIN, runConfigSchema } from '@/core/run-config';
import type { Db } from '@/db/client';
import { episodes, rewards, runEvents, runs, taskSuites, tasks } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { recordEpisodeResult, type PlayedEpisode } from './record';

/** The run `crucible episode run --store` puts episodes in without `--run`. */
export const DEFAULT_EPISODE_RUN = 'cli-episodes';

/**
 * The run of stored CLI episodes named `name`, or undefined where there is none yet; a name
 * taken by a training run is refused (CONFLICT), so the command can say so before it plays.
 */
export async function episodeRunNamed(db: DbOrTx, name: string) {
  const named = await db.select({ id: runs.id, config: runs.config }).from(runs).where(eq(runs.name, name)).orderBy(desc(runs.createdAt));
  const run = named.find((r) => r.config.origin === EPISODE_RUN_ORIGIN);
  if (!run && named.length)
    throw new DomainError('CONFLICT', `run "${name}" is a training run; stored episodes go into a run of their own: choose another --run name`);
  return run;
}

export type CliEpisodeInput = {
  /** the run that holds it: found by name among runs of stored CLI episodes, created on first use */
  runName: string;
  /** the tasks row the episode played */
  taskId: string;
  played: PlayedEpisode;
  startedAt: Date;
  /** the host the episode ran on */
  host: string;
  /** what played it (the script file, the flags), kept in the run event */
  details: Record<string, unknown>;
};

/**
 * Store one episode played outside the RL loop (`crucible episode run --store`), in one
 * transaction, so the console's episode page, the run's episode table and the episode exports
 * read it like an RL episode: the episode row, its turns and its reward (or its masked status)
 * through the same writer as the RL commit (./record.ts), under a run of stored CLI episodes.
 *
 * That run is found by name (its config carries `origin: "episode-run"`) or created on first use,
 * completed from the start: it trains nothing and the RL loop never plays it. Its episodes are
 * iteration 0, group 0, sample 0, 1, 2… in the order they were stored; its progress counts them
 * and its last reward mean is the mean over them. A name taken by a training run is refused.
 */
export async function storeCliEpisode(db: Db, input: CliEpisodeInput, actor: string) {
  return db.transaction(async (tx) => {
    const [task] = await tx
      .select({ id: tasks.id, externalId: tasks.externalId, suiteId: tasks.suiteId, suiteName: taskSuites.name })
      .from(tasks)
      .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
      .where(eq(tasks.id, input.taskId));
    if (!task) throw new DomainError('NOT_FOUND', `no task with id ${input.taskId}`);
    // one writer per run name at a time: two commands storing into a new name create one run
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`episode-run:${input.runName}`}))`);
    let run = await episodeRunNamed(tx, input.runName);
    const now = new Date();
    if (!run) {
      const config = runConfigSchema.parse({ suite: task.suiteName, origin: EPISODE_RUN_ORIGIN, iterations: 1, tasksPerIteration: 1, groupSize: 1 });
      const [created] = await tx
        .insert(runs)
        .values({ name: input.runName, status: 'completed', config, suiteId: task.suiteId, startedAt: now, finishedAt: now })
        .returning({ id: runs.id, config: runs.config });
      run = created!;
      await tx.insert(runEvents).values({
        runId: run.id,
        type: 'created',
        toStatus: 'completed',
        actor,
        message: `created by ${actor} to hold episodes stored by \`crucible episode run --store\` (scripted policies: nothing is trained)`,
        data: { origin: EPISODE_RUN_ORIGIN },
      });
      await appendAudit(tx, { actor, action: 'run.create', targetType: 'run', targetId: run.id, details: { name: input.runName, config } });
    }
    const [{ n } = { n: 0 }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(episodes)
      .where(eq(episodes.runId, run.id));
    const [episode] = await tx
      .insert(episodes)
      .values({ runId: run.id, taskId: task.id, iteration: 0, groupIndex: 0, sampleIndex: n, status: 'running', startedAt: input.startedAt })
      .returning({ id: episodes.id });
    const status = await recordEpisodeResult(
      tx,
      episode!.id,
      { policyVersionId: null, host: input.host, workerId: 'cli:episode-run', startedAt: input.startedAt },
      input.played,
    );
    const [mean] = await tx
      .select({ v: sql<number | null>`avg(${rewards.value})::float8` })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .where(eq(episodes.runId, run.id));
    await tx
      .update(runs)
      .set({ episodesTotal: n + 1, episodesDone: n + 1, lastRewardMean: mean?.v ?? null, updatedAt: now, finishedAt: now })
      .where(eq(runs.id, run.id));
    const reward = input.played.reward?.value ?? null;
    await tx.insert(runEvents).values({
      runId: run.id,
      type: 'episode_stored',
      actor,
      message: `episode on ${task.externalId} stored by ${actor}: ${status === 'scored' ? `reward ${reward!.toFixed(3)}` : `masked as ${status}`}`,
      data: { episodeId: episode!.id, task: task.externalId, status, reward, ...input.details },
    });
    await appendAudit(tx, {
      actor,
      action: 'episode.store',
      targetType: 'episode',
      targetId: episode!.id,
      details: { runId: run.id, task: task.externalId, status, reward },
    });
    return { episodeId: episode!.id, runId: run.id, runName: input.runName, status, reward };
  });
}
