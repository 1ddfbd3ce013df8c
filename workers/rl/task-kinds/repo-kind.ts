import type { RepoGrade } from '@/core/repo-tasks';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { taskSuiteSystemPrompt } from '@/server/tasks/suite-system-prompt';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { agentMessageCut, agentTokenBudget, playedRepoEpisode, playRepoEpisode } from '../agent-episode';
import { agentRenderer } from '../agent-renderer';
import { repoEpisodeReward } from '../repo-episode-reward';
import { episodeSeed } from '../schedule';
import type { Rescore, TaskKind } from './task-kind';

/** A repository grade as a diagnosis shows it, every test by name. */
export function rescoreOfGrade(g: RepoGrade): Rescore {
  return {
    status: g.status === 'graded' ? 'scored' : 'infra_error',
    reward: g.reward,
    components: g.components,
    envHash: g.envHash || null,
    runtime: g.runtime || null,
    tests: g.tests.map((t, index) => ({ index, passed: t.passed, detail: `${t.name} (${t.outcome})${t.detail ? `: ${t.detail}` : ''}` })),
    ...(g.error ? { note: `the grader could not run the tests: ${g.error}` } : {}),
  };
}

/**
 * Repository tasks: an agent episode with tools in one sandbox for the whole episode, the patch
 * graded in a clean sandbox (../agent-episode.ts), the reward blending the tests with the patch's
 * style and the episode's efficiency (../repo-episode-reward.ts). The learner trains each episode
 * as one sequence.
 */
export const repoKind: TaskKind = {
  name: 'repo',
  wholeEpisode: true,
  async play({ db, run, episode: e, task: t, policy, manager, settings, signal, log }) {
    const task = await loadStoredRepoTask(db, t.id);
    const played = await playRepoEpisode({
      run,
      task,
      suiteSystemPrompt: await taskSuiteSystemPrompt(db, t.id),
      risk: t.risk,
      policy,
      manager,
      settings,
      seed: episodeSeed(run.config.seed, e.iteration, e.groupIndex, e.sampleIndex),
      temperature: run.config.temperature,
      episodeId: e.id,
      signal,
      log,
    });
    const { result } = played;
    return playedRepoEpisode(
      task,
      played,
      (grade) => repoEpisodeReward(grade, { patch: result.patch ?? '', binarySkipped: result.binarySkipped, turns: result.turns.length }, run.config),
      { end: result.end, policyMs: Math.round(played.policyMs), durationMs: result.durationMs },
    );
  },
  // the episode exactly as training plays it (tools, budgets, isolation), graded the same way
  async heldoutAttempt({ db, run, task: t, policy, manager, settings, seed, temperature }) {
    const task = await loadStoredRepoTask(db, t.id);
    const suiteSystemPrompt = await taskSuiteSystemPrompt(db, t.id);
    const out = await playRepoEpisode({ run, task, risk: t.risk, policy, manager, settings, seed, temperature, suiteSystemPrompt });
    return out.infra ? null : out.result.grade!.reward === 1;
  },
  // the graded patch (episodes.grading.patch, the diff the reward was computed from), graded again exactly as
  // the episode was: a new clean sandbox, pristine workspace, test files restored, hidden tests added
  async rescorer({ db, episode, task: t }) {
    const patch = episode.grading?.patch;
    if (typeof patch !== 'string') return 'the episode has no graded patch to re-grade (it ended before grading, or was masked as an infrastructure failure)';
    const task = await loadStoredRepoTask(db, t.id);
    return {
      // a repository task's environment is its own (RepoTask.environment, `repo` by default), as its episodes ran in
      baselineEnv: task.environment,
      rescore: async (envName, { manager, scoring, context }) =>
        rescoreOfGrade(
          await gradeRepoTask(manager, { ...task, environment: envName }, patch, { runtime: scoring.sandbox.runtime, limits: scoring.sandbox.limits, context }),
        ),
    };
  },
  truncated: (policy, _run, _task, generated) => agentMessageCut(agentRenderer(policy), generated),
  normTokens: (config, policy) => agentTokenBudget(config, policy),
};
