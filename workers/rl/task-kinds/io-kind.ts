import { desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { turns } from '@/db/schema';
import type { TaskTests } from '@/core/tasks';
import { runEpisode, sourceFor, wasTruncated, type EpisodeOutcome } from '../episode';
import { bytePolicy } from '../policy-store';
import { scoreSolution, type ScoreResult } from '../reward/reward';
import { scoringOptions } from '../reward/scoring-options';
import { episodeSeed } from '../schedule';
import type { PlayedEpisode, Rescore, TaskKind } from './task-kind';

/** What an infrastructure failure of a scored episode was, for the episode row and the operator reading it. */
export const infraReason = (score: EpisodeOutcome['score']) =>
  `${score.status}: ${(score.harness.harnessError || score.harness.exec.error || score.harness.exec.stderr || 'no detail').slice(0, 480)}`;

/** A harness score as a diagnosis shows it. */
export const rescoreOf = (r: ScoreResult): Rescore => ({
  status: r.status,
  reward: r.reward,
  components: r.components,
  envHash: r.envHash,
  runtime: r.runtime,
  tests: r.harness.tests.map((t) => ({ index: t.index, passed: t.passed, detail: t.detail })),
});

/** The episode's last action (the answer its reward scored), or why there is none. */
export async function lastAction(db: Db, episodeId: string): Promise<string | null> {
  const [last] = await db.select({ action: turns.action }).from(turns).where(eq(turns.episodeId, episodeId)).orderBy(desc(turns.index)).limit(1);
  return last ? last.action : null;
}

/** An I/O or text episode's outcome (../episode.ts, ../text-episode.ts) as the episode commit takes it. */
export function playedFromOutcome(out: EpisodeOutcome): PlayedEpisode {
  const s = out.score;
  const infra = s.status === 'scored' ? null : { status: s.status, reason: infraReason(s) };
  return {
    turns: out.turns.map(({ truncated: _, ...t }) => t),
    infra,
    reward: infra ? null : { value: s.reward!, components: s.components, envHash: s.envHash, harnessVersion: s.harnessVersion },
    runtime: s.runtime,
    envHash: s.envHash,
    endReason: out.endReason,
    summary: { policyMs: Math.round(out.policyMs), sandboxMs: Math.round(out.sandboxMs) },
  };
}

/**
 * I/O tasks (a function against input/output cases or a HumanEval check): the byte model writes
 * the function over up to maxTurns turns, each scored in a sandbox with the previous score as
 * feedback (../episode.ts).
 */
export const ioKind: TaskKind = {
  name: 'io',
  wholeEpisode: false,
  async play({ run, episode: e, task: t, policy, manager, settings: s, signal, log }) {
    const tests = t.tests as TaskTests;
    const out = await runEpisode({
      manager,
      scoring: scoringOptions(run, { ...t, tests }, s),
      seed: episodeSeed(run.config.seed, e.iteration, e.groupIndex, e.sampleIndex),
      temperature: run.config.temperature,
      topP: run.config.topP,
      maxNewTokens: s.maxNewTokens,
      context: { runId: run.id, episodeId: e.id },
      signal,
      log,
      policy: bytePolicy(run, policy, 'input/output tasks'),
      task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests },
      maxTurns: run.config.maxTurns,
      feedbackBudget: s.feedbackBudget,
    });
    return playedFromOutcome(out);
  },
  // single-turn, as pass@k is usually reported
  async heldoutAttempt({ run, task: t, policy, manager, settings, seed, temperature }) {
    const tests = t.tests as TaskTests;
    const out = await runEpisode({
      manager,
      scoring: scoringOptions(run, { ...t, tests }, settings),
      seed,
      temperature,
      topP: run.config.topP,
      maxNewTokens: settings.maxNewTokens,
      context: { runId: run.id, episodeId: '' },
      policy: bytePolicy(run, policy, 'input/output tasks'),
      task: { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests },
      maxTurns: 1,
      feedbackBudget: 0,
    });
    return out.score.status === 'scored' ? out.score.components.passRate === 1 : null;
  },
  async rescorer({ db, episode, task: t }) {
    const action = await lastAction(db, episode.id);
    if (action === null) return 'the episode has no turns: there is no final code to re-run';
    const task = { language: t.language, prompt: t.prompt, entryPoint: t.entryPoint, tests: t.tests as TaskTests };
    // turns store the policy's action (the body); the scored program is the prompt's header plus it
    const source = sourceFor(task, action);
    return {
      baselineEnv: null,
      rescore: async (envName, { manager, scoring, context }) => {
        const { sandbox, ...opts } = scoring;
        return rescoreOf(await scoreSolution(manager, { ...sandbox, env: envName }, task, source, { ...opts, context }));
      },
    };
  },
  truncated: (policy, run, task, generated) => wasTruncated(bytePolicy(run, policy, 'input/output tasks'), task.language, generated),
  normTokens: (_config, _policy, s) => s.maxNewTokens,
};
