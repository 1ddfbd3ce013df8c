import type { Db } from '@/db/client';
import type { episodes, tasks } from '@/db/schema';
import type { RunConfig } from '@/core/run-config';
import type { RlSettings } from '@/core/settings';
import type { TaskKind as TaskKindName, TaskLanguage } from '@/core/tasks';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Logger } from '@/server/logs/logger';
import type { ScoringOptions } from '../reward/scoring-options';
import type { PlayedEpisode } from '@/server/episodes/record';

export type TaskRow = typeof tasks.$inferSelect;
export type EpisodeRow = typeof episodes.$inferSelect;
export type RunRef = { id: string; suiteId: string | null; config: RunConfig };

/** One turn, and what one episode produced: the input of the one episode commit (../episode-commit.ts), written by server/episodes/record.ts. */
export type { PlayedEpisode, TurnInsert } from '@/server/episodes/record';

/** An episode of a run to roll out and score. */
export type PlayInput = {
  db: Db;
  run: RunRef;
  episode: EpisodeRow;
  task: TaskRow;
  policy: RlPolicy;
  manager: SandboxManager;
  settings: RlSettings;
  signal?: AbortSignal;
  /** bound to the run and the episode: sampling, tool calls, sandbox runs and the grade are logged on it */
  log?: Logger;
};

/** One held-out attempt at a task: greedy (temperature 0, seed 0) for pass@1, sampled for pass@k. */
export type HeldoutAttempt = {
  db: Db;
  run: RunRef;
  task: TaskRow;
  policy: RlPolicy;
  manager: SandboxManager;
  settings: Pick<RlSettings, 'maxNewTokens' | 'testTimeoutMs'>;
  seed: number;
  temperature: number;
};

/** One re-scoring of a finished episode's answer (a reviewer's diagnosis), with every test. */
export type Rescore = {
  /** infra_error: a repository grade the grader could not complete (masked, never 0) */
  status: 'scored' | 'env_mismatch' | 'sandbox_error' | 'infra_error';
  reward: number | null;
  components: Record<string, number> | null;
  envHash: string | null;
  runtime: string | null;
  tests: { index: number; passed: boolean; detail: string }[];
  note?: string;
};

/** How a finished episode's answer (final code, text or graded patch) is scored again, in a named environment. */
export type Rescorer = {
  /** the environment the task's episodes run in when it is not the scoring options' (a repository task's own) */
  baselineEnv: string | null;
  rescore(envName: string, o: { manager: SandboxManager; scoring: ScoringOptions; context: { runId: string; episodeId: string } }): Promise<Rescore>;
};

/**
 * Everything the RL loop does differently by kind of task (I/O, text, repository), behind one
 * interface: the loop, the learner and held-out evaluation call these and never test
 * `tasks.kind` themselves. A new kind of task (or a new runner) is a new implementation
 * registered in ./registry.ts.
 */
export interface TaskKind {
  readonly name: TaskKindName;
  /** Prompt the policy, let it act for as many turns as the kind allows, score the result. */
  play(o: PlayInput): Promise<PlayedEpisode>;
  /** One held-out attempt: true when it fully passes, false when not, null for an infrastructure failure (left out). */
  heldoutAttempt(o: HeldoutAttempt): Promise<boolean | null>;
  /** Whether the learner trains an episode as one sequence (its turns concatenated) rather than turn by turn. */
  readonly wholeEpisode: boolean;
  /** Whether a generated message stopped at its token budget rather than ending (overlong masking). */
  truncated(policy: RlPolicy, run: RunRef, task: { language: TaskLanguage }, generated: number[]): boolean;
  /** How a reviewer's diagnosis re-scores a finished episode of this kind; a string says why it cannot. */
  rescorer(o: { db: Db; episode: EpisodeRow; task: TaskRow }): Promise<Rescorer | string>;
  /** The token count the learner normalises a sequence's loss by. */
  normTokens(config: RunConfig, policy: RlPolicy, settings: Pick<RlSettings, 'maxNewTokens'>): number;
}
