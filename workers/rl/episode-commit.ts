import { eq, sql } from 'drizzle-orm';
import { episodes, runs } from '@/db/schema';
import { episodeResultColumns, recordEpisodeResult, writeEpisodeTurns } from '@/server/episodes/record';
import type { Tx } from '@/server/queue';
import type { Logger } from '@/server/logs/logger';
import { sampleForReview } from '@/server/reviews/sampler';
import { topUp } from './schedule';
import type { EpisodeRow, PlayedEpisode } from './task-kinds/task-kind';

/** What the commit needs besides the played episode. */
export type EpisodeCommit = {
  runId: string;
  episode: Pick<EpisodeRow, 'id' | 'attempt'>;
  policyVersionId: string;
  host: string;
  workerId: string;
  startedAt: Date;
  /** infrastructure failures retried before one is masked (CRUCIBLE_RL_INFRA_RETRIES) */
  infraRetries: number;
  /** bound to the run and episode: what the commit did is logged (as the transaction commits with the job) */
  log?: Logger;
};

/** A run's finished-episode counter, bumped once per finished episode (retried slots are not finished). */
async function countFinished(tx: Tx, runId: string) {
  await tx
    .update(runs)
    .set({ episodesDone: sql`${runs.episodesDone} + 1`, updatedAt: new Date() })
    .where(eq(runs.id, runId));
}

/**
 * The one place an episode's result is written, for every kind of task, in the transaction that
 * completes its rl.episode job: its turns, then one of
 * - retry: an infrastructure failure with retries left goes back to pending as a new attempt;
 * - masked: an infrastructure failure without retries left keeps its status (sandbox_error /
 *   env_mismatch), out of the loss and its group's baseline, never scored 0;
 * - scored: the reward row, the episode scored, and the review sampler's draw;
 * and the run's next step (topUp). An episode no longer running (finished elsewhere, reset by a
 * cancel) is left alone.
 */
export async function commitEpisode(tx: Tx, c: EpisodeCommit, played: PlayedEpisode) {
  const episodeId = c.episode.id;
  const [cur] = await tx.select({ status: episodes.status }).from(episodes).where(eq(episodes.id, episodeId)).for('update');
  if (cur?.status !== 'running') return { skipped: cur?.status };
  const { infra, reward } = played;
  const retry = infra !== null && c.episode.attempt <= c.infraRetries;
  const fields = { policyVersionId: c.policyVersionId, host: c.host, workerId: c.workerId, startedAt: c.startedAt };
  if (infra && retry) {
    // infrastructure failure: not the policy's fault, run the slot again
    await writeEpisodeTurns(tx, episodeId, played.turns);
    await tx
      .update(episodes)
      .set({
        ...episodeResultColumns(fields, played),
        status: 'pending',
        attempt: c.episode.attempt + 1,
        error: `attempt ${c.episode.attempt}: ${infra.reason}`,
        endReason: 'infra',
      })
      .where(eq(episodes.id, episodeId));
  } else {
    // masked (out of the loss and out of its group's baseline; never scored 0) or scored
    const recorded = await recordEpisodeResult(tx, episodeId, fields, played);
    await countFinished(tx, c.runId);
    if (recorded === 'scored') await sampleForReview(tx, episodeId);
  }
  await topUp(tx, c.runId);
  const status = retry ? 'retry' : (infra?.status ?? 'scored');
  const said =
    status === 'retry'
      ? `episode to run again (attempt ${c.episode.attempt + 1}) after an infrastructure failure`
      : status === 'scored'
        ? `episode scored: reward ${reward!.value.toFixed(3)}`
        : `episode masked as ${status} (no retries left)`;
  c.log?.[status === 'scored' ? 'info' : 'warn']({ stage: 'commit', status, reward: reward?.value ?? null, turns: played.turns.length }, said);
  return {
    status,
    reward: reward?.value ?? null,
    turns: played.turns.length,
    ...played.summary,
  };
}
