import { and, eq } from 'drizzle-orm';
import { episodes, runs, tasks } from '@/db/schema';
import { RL_QUEUES } from '@/core/queues';
import { jobHandler, jobLogger, PermanentJobError } from '@/workers/jobs/job-handler';
import { commitEpisode } from '../episode-commit';
import { latestVersion, loadRunPolicy } from '../policy-store';
import type { RlContext } from '../rl-context';
import { taskKind } from '../task-kinds/registry';

/** rl.episode: one episode, played by its task's kind; its turns, reward and the run's next step commit with the job. */
export function episodeJob(c: RlContext) {
  return jobHandler(RL_QUEUES.episode, {
    leaseMs: c.rl.leaseMs(60_000),
    run: async (job, ctx) => {
      const { episodeId } = job.payload;
      const [row] = await ctx.db
        .select({ e: episodes, t: tasks, run: runs })
        .from(episodes)
        .innerJoin(runs, eq(runs.id, episodes.runId))
        .innerJoin(tasks, eq(tasks.id, episodes.taskId))
        .where(eq(episodes.id, episodeId));
      if (!row) throw new PermanentJobError(`no episode ${episodeId}`);
      if (row.e.status !== 'running') return; // already finished (or reset by a cancel)
      const { e, t, run } = row;
      if (run.status === 'cancelled' || run.status === 'failed' || run.status === 'completed') {
        // the run ended after this episode was dispatched: don't spend a sandbox on it
        return async (tx) => {
          await tx
            .update(episodes)
            .set({ status: 'cancelled', endReason: `run ${run.status}` })
            .where(and(eq(episodes.id, episodeId), eq(episodes.status, 'running')));
        };
      }
      const version = await latestVersion(ctx.db, run.id);
      if (!version) throw new Error('run has no policy version yet');
      // A quarantined environment is refused by the sandbox manager (status env_mismatch): the
      // episode is then an infrastructure failure, masked, never scored 0.
      const policy = await loadRunPolicy(run, version, c.checkpoints(ctx.db));
      const startedAt = new Date();
      // the job's logger is bound to the job and this episode; the episode's lines name its run too
      const log = jobLogger(ctx).child({ run: run.id, episode: e.id });
      log.info(
        {
          stage: 'episode',
          kind: t.kind,
          task: t.id,
          iteration: e.iteration,
          group: e.groupIndex,
          sample: e.sampleIndex,
          attempt: e.attempt,
          policyVersion: version.version,
        },
        `episode started: ${t.kind} task ${t.externalId ?? t.id}, iteration ${e.iteration}, group ${e.groupIndex}, sample ${e.sampleIndex}, attempt ${e.attempt}, policy v${version.version}`,
      );
      const played = await taskKind(t.kind).play({
        db: ctx.db,
        run,
        episode: e,
        task: t,
        policy,
        manager: c.sandboxes(ctx.db),
        settings: c.rl,
        signal: ctx.signal,
        log,
      });
      const durationMs = Date.now() - startedAt.getTime();
      log[played.infra ? 'warn' : 'info'](
        {
          stage: 'episode',
          durationMs,
          end: played.endReason,
          turns: played.turns.length,
          reward: played.reward?.value ?? null,
          ...(played.infra ? { infra: played.infra } : {}),
        },
        `episode played in ${durationMs} ms: ${played.endReason}, ${played.turns.length} turn(s), ${played.infra ? `infrastructure failure (${played.infra.reason.slice(0, 200)})` : `reward ${played.reward!.value.toFixed(3)}`}`,
      );
      return (tx) =>
        commitEpisode(
          tx,
          { runId: run.id, episode: e, policyVersionId: version.id, host: c.host, workerId: ctx.workerId, startedAt, infraRetries: c.rl.infraRetries, log },
          played,
        );
    },
  });
}
