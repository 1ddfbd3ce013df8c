import { eq } from 'drizzle-orm';
import type { EpisodeGrading } from '@/core/repo-tasks';
import { episodes, rewards, turns } from '@/db/schema';
import type { DbOrTx } from '@/server/audit/service';

/** One turn as an episode's result stores it (turns row without its episode). */
export type TurnInsert = Omit<typeof turns.$inferInsert, 'episodeId'>;

/**
 * What one episode produced, whatever its kind and whoever played it (the RL loop's task kinds,
 * `crucible episode run --store`): the input of `recordEpisodeResult`.
 */
export type PlayedEpisode = {
  turns: TurnInsert[];
  /** an infrastructure failure (the sandbox, the grader): retried or masked, never scored */
  infra: { status: 'sandbox_error' | 'env_mismatch'; reason: string } | null;
  /** the reward row; null exactly when `infra` is set */
  reward: Pick<typeof rewards.$inferInsert, 'value' | 'components' | 'envHash' | 'harnessVersion'> | null;
  runtime: string | null;
  envHash: string | null;
  /** a repository episode's grade, patch and end (episodes.grading) */
  grading?: EpisodeGrading | null;
  endReason: string;
  /** what the job's result says of the episode besides status, reward and turns */
  summary: Record<string, unknown>;
};

/** The episode row's fields every outcome sets: who served it, where, when, with which policy. */
export type EpisodeResultFields = {
  policyVersionId: string | null;
  host: string | null;
  workerId: string | null;
  startedAt: Date;
};

/** The episode row's columns of a played episode, whatever its outcome (status and end reason aside). */
export function episodeResultColumns(f: EpisodeResultFields, played: PlayedEpisode) {
  return {
    policyVersionId: f.policyVersionId,
    runtime: played.runtime,
    envHash: played.envHash,
    host: f.host,
    workerId: f.workerId,
    turnsCount: played.turns.length,
    ...(played.grading !== undefined ? { grading: played.grading } : {}),
    startedAt: f.startedAt,
    finishedAt: new Date(),
  };
}

/** An episode's turns, replacing any an earlier attempt wrote. */
export async function writeEpisodeTurns(tx: DbOrTx, episodeId: string, rows: TurnInsert[]) {
  await tx.delete(turns).where(eq(turns.episodeId, episodeId));
  if (rows.length) await tx.insert(turns).values(rows.map((t) => ({ ...t, episodeId })));
}

/**
 * A finished episode's result, in the caller's transaction: its turns, then either masked (an
 * infrastructure failure keeps its status, sandbox_error / env_mismatch, and no reward: never
 * scored 0) or scored (the reward row with its provenance, env hash and harness version, and
 * the episode scored). The one writer of finished episodes for the RL loop's commit
 * (workers/rl/episode-commit.ts) and for stored CLI episodes (./store-cli-episode.ts).
 */
export async function recordEpisodeResult(
  tx: DbOrTx,
  episodeId: string,
  f: EpisodeResultFields,
  played: PlayedEpisode,
): Promise<'scored' | 'sandbox_error' | 'env_mismatch'> {
  await writeEpisodeTurns(tx, episodeId, played.turns);
  const base = episodeResultColumns(f, played);
  const { infra, reward } = played;
  if (infra) {
    await tx
      .update(episodes)
      .set({ ...base, status: infra.status, endReason: 'infra', error: infra.reason })
      .where(eq(episodes.id, episodeId));
    return infra.status;
  }
  if (!reward) throw new Error(`episode ${episodeId} finished without an infrastructure failure but has no reward`);
  await tx
    .insert(rewards)
    .values({ episodeId, ...reward, policyVersionId: f.policyVersionId })
    .onConflictDoNothing();
  await tx
    .update(episodes)
    .set({ ...base, status: 'scored', endReason: played.endReason })
    .where(eq(episodes.id, episodeId));
  return 'scored';
}
