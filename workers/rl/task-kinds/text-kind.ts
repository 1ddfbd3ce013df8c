import type { TaskTests } from '@/core/tasks';
import { scoringOptions } from '../reward/scoring-options';
import { episodeSeed } from '../schedule';
import { scoreText } from '../reward/text-reward';
import { runTextEpisode, textTruncated } from '../text-episode';
import { lastAction, playedFromOutcome, rescoreOf } from './io-kind';
import type { TaskKind, TaskRow } from './task-kind';

function checksOf(t: TaskRow) {
  const tests = t.tests as TaskTests;
  if (tests.kind !== 'text') throw new Error(`task ${t.externalId} is a text task whose stored tests are "${tests.kind}", not text checks; import it again`);
  return { tests, task: { prompt: t.prompt, checks: tests.checks } };
}

/** Text tasks: one continuation, scored by the checker program in a sandbox (../text-episode.ts). */
export const textKind: TaskKind = {
  name: 'text',
  wholeEpisode: false,
  async play({ run, episode: e, task: t, policy, manager, settings: s, signal, log }) {
    const { tests, task } = checksOf(t);
    const out = await runTextEpisode({
      manager,
      scoring: scoringOptions(run, { ...t, tests }, s),
      seed: episodeSeed(run.config.seed, e.iteration, e.groupIndex, e.sampleIndex),
      temperature: run.config.temperature,
      topP: run.config.topP,
      maxNewTokens: s.maxNewTokens,
      context: { runId: run.id, episodeId: e.id },
      signal,
      log,
      policy,
      task,
    });
    return playedFromOutcome(out);
  },
  async heldoutAttempt({ run, task: t, policy, manager, settings, seed, temperature }) {
    const { tests, task } = checksOf(t);
    const out = await runTextEpisode({
      manager,
      scoring: scoringOptions(run, { ...t, tests }, settings),
      seed,
      temperature,
      topP: run.config.topP,
      maxNewTokens: settings.maxNewTokens,
      context: { runId: run.id, episodeId: '' },
      policy,
      task,
    });
    return out.score.status === 'scored' ? out.score.components.passRate === 1 : null;
  },
  // the text is the action itself, scored by the text checker as the episode was
  async rescorer({ db, episode, task: t }) {
    const { task } = checksOf(t);
    const text = await lastAction(db, episode.id);
    if (text === null) return 'the episode has no turns: there is no text to re-score';
    return {
      baselineEnv: null,
      rescore: async (envName, { manager, scoring, context }) =>
        rescoreOf(await scoreText(manager, { ...scoring.sandbox, env: envName }, task.checks, text, { context })),
    };
  },
  truncated: (policy, _run, _task, generated) => textTruncated(policy, generated),
  normTokens: (_config, _policy, s) => s.maxNewTokens,
};
