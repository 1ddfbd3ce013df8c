import { DEFAULT_AGENT_TOOLS, type EpisodeGrading, type RepoGrade, type RepoTask } from '@/core/repo-tasks';
import type { RunConfig } from '@/core/run-config';
import type { RlSettings } from '@/core/settings';
import { defaultSystemPrompt, runAgentEpisode, type AgentEpisodeResult } from '@/lib/agent/episode/run-episode';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import { agentTaskPrompt } from '@/lib/agent/episode/task-prompt';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { TemplateRenderError } from '@/lib/policy/hf/bounded-template';
import { gradeRepoTask, REPO_GRADER_VERSION } from '@/lib/agent/grade/grade-repo-task';
import { unreadableWorkspaceGrade } from '@/lib/agent/episode/unreadable-grade';
import type { AgentPolicy } from '@/lib/agent/policies/agent-policy';
import { SampledAgentPolicy } from '@/lib/agent/policies/sampled-policy';
import type { ChatRenderer } from '@/lib/agent/render/chat-renderer';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Logger } from '@/server/logs/logger';
import type { PlayedEpisode } from '@/server/episodes/record';
import { agentRenderer, runRenderOptions } from './agent-renderer';
import { agentTurnRows, withoutNul, type AgentTurnRow } from './agent-turn-rows';
import { scoringOptions } from './reward/scoring-options';
import { logGrade, logSampled, logToolCall } from './episode-log';
import { withComputePhase } from '@/lib/compute/meter';

// Repository-task episodes in the RL loop (docs/agents.md, "RL on repository suites"): the run's
// policy (the byte model, or a registered model with its chat template) acts through tools in one
// sandbox for the whole episode, the patch is graded in a clean sandbox, and the episode's one
// token sequence is stored as its turns. The repository task kind (./task-kinds/repo-kind.ts)
// plays training and held-out episodes through playRepoEpisode.

/**
 * The episode's token budget: the run's, never above the policy's context, so the sequence the
 * learner trains on (every assistant token lies within the budget) fits the model. The prompt
 * alone must leave room for a message, or no episode of this run can sample anything.
 */
export function agentTokenBudget(config: Pick<RunConfig, 'agentTokenBudget'>, policy: Pick<RlPolicy, 'maxSeqLen'>): number {
  return Math.min(config.agentTokenBudget ?? 4096, policy.maxSeqLen);
}

/** An agent message was cut off (at its token cap or the episode's budget) when it does not end with the renderer's end-of-message token. */
export const agentMessageCut = (renderer: Pick<ChatRenderer, 'stopTokens'>, generated: number[]) =>
  generated.length > 0 && !renderer.stopTokens.includes(generated.at(-1)!);

/** The run's policy as an agent policy, timing each message (the turn rows' policyMs). */
class TimedPolicy implements AgentPolicy {
  readonly name: string;
  readonly ms: number[] = [];
  constructor(
    private readonly inner: AgentPolicy,
    private readonly signal?: AbortSignal,
    private readonly log?: Logger,
  ) {
    this.name = inner.name;
  }
  async next(...a: Parameters<AgentPolicy['next']>) {
    // a lost lease or a stopping worker: end now (the episode's result will not be committed)
    if (this.signal?.aborted) throw new Error('episode aborted (lease lost or worker stopping)');
    const t0 = performance.now();
    const out = await this.inner.next(...a);
    const took = performance.now() - t0;
    logSampled(this.log, { turn: this.ms.length, tokens: out.tokens.length, durationMs: took });
    this.ms.push(took);
    return out;
  }
}

/** The run's system prompt for its agents: its own, else its suite's (task_suites.system_prompt), else Crucible's default for the tool-call format. */
export const agentSystemPrompt = (c: Pick<RunConfig, 'agentSystemPrompt'>, format: Parameters<typeof defaultSystemPrompt>[0], suitePrompt?: string | null) =>
  c.agentSystemPrompt ?? suitePrompt ?? defaultSystemPrompt(format);

export type PlayedRepoEpisode = {
  result: AgentEpisodeResult<RepoGrade>;
  rows: AgentTurnRow[];
  /** null when it counts: an infrastructure failure (the episode's sandbox, or the grader) to retry or mask, never scored */
  infra: { status: 'sandbox_error' | 'env_mismatch'; reason: string } | null;
  policyMs: number;
};

/**
 * One repository-task episode of a run, graded: the run's isolation tier, the episode sandbox
 * limits and the run's agent budgets and tool set; the policy samples at `temperature` with
 * `seed` (each message seed + turn, so a slot replays token for token).
 */
export async function playRepoEpisode(o: {
  run: { id: string; config: RunConfig };
  task: RepoTask;
  risk: 'routine' | 'high';
  policy: RlPolicy;
  manager: SandboxManager;
  settings: Pick<RlSettings, 'testTimeoutMs'>;
  seed: number;
  temperature: number;
  episodeId?: string;
  signal?: AbortSignal;
  /** bound to the run and episode: each message, tool call and the grade are logged */
  log?: Logger;
  /** the task's suite's system prompt (the run's own wins) */
  suiteSystemPrompt?: string | null;
}): Promise<PlayedRepoEpisode> {
  const { run, task } = o;
  const c = run.config;
  // the same isolation policy as input/output episodes: the task's risk tier picks the run's runtime
  const { sandbox } = scoringOptions(run, { risk: o.risk, environmentName: task.environment, tests: { kind: 'repo' } }, o.settings);
  const policy = new TimedPolicy(new SampledAgentPolicy(o.policy, { temperature: o.temperature, topP: c.topP, seed: o.seed }), o.signal, o.log);
  const context = { runId: run.id, episodeId: o.episodeId };
  const renderer = agentRenderer(o.policy, runRenderOptions(c));
  const tokenBudget = agentTokenBudget(c, o.policy);
  // a prompt that fills the budget leaves the agent no message: every episode would be an empty patch scored 0
  const modelConfigError = (e: unknown): never => {
    // a template that fails or exceeds its limits is the model's configuration: no retry renders it differently
    if (e instanceof TemplateRenderError) throw new PermanentJobError(`${c.policy.kind === 'hf' ? `model "${c.policy.model}"` : 'the policy'}: ${e.message}`);
    throw e;
  };
  const systemPrompt = agentSystemPrompt(c, renderer.toolCallFormat, o.suiteSystemPrompt);
  let prompt: number;
  try {
    prompt = renderer.begin({ system: systemPrompt, user: agentTaskPrompt(task), tools: toolSchemas(c.tools) }).sequence.ids.length;
  } catch (e) {
    return modelConfigError(e);
  }
  if (prompt >= tokenBudget)
    throw new PermanentJobError(
      `task ${task.id}: the agent's prompt (system text, ${(c.tools ?? DEFAULT_AGENT_TOOLS).length} tool schemas, problem statement, layout and test command) is ${prompt} tokens, the episode's token budget ${tokenBudget}; raise agentTokenBudget (about ${Math.ceil((prompt + 1024) / 512) * 512} leaves room to act) or offer fewer tools, and launch the run again`,
    );
  const result = await runAgentEpisode<RepoGrade>({
    manager: o.manager,
    task,
    policy,
    renderer,
    runtime: sandbox.runtime,
    env: sandbox.env,
    limits: sandbox.limits,
    maxTurns: c.maxTurns,
    systemPrompt,
    tokenBudget,
    maxNewTokens: c.agentMaxNewTokens ?? 256,
    timeBudgetMs: (c.agentTimeBudgetS ?? 300) * 1000,
    tools: c.tools,
    toolLimits: { outputBytes: c.agentToolOutputBytes ?? 16_384 },
    diffEachTurn: true,
    // graded in a new, clean sandbox on the same runtime, environment and limits
    grade: async (t, patch) => {
      const t0 = performance.now();
      const g = await withComputePhase('grading', () =>
        gradeRepoTask(o.manager, t, patch, { runtime: sandbox.runtime, limits: sandbox.limits, weights: c.repoRewardWeights, context }),
      );
      logGrade(o.log, {
        status: g.status,
        reward: g.reward,
        durationMs: performance.now() - t0,
        testsPassed: g.tests.filter((x) => x.passed).length,
        testsTotal: g.tests.length,
        patchBytes: Buffer.byteLength(patch),
        ...(g.error ? { detail: g.error.slice(0, 300) } : {}),
      });
      return g;
    },
    unreadable: unreadableWorkspaceGrade,
    onToolCall: (turn, rec) => logToolCall(o.log, turn, rec),
  }).catch(modelConfigError);
  const rows = agentTurnRows(result, policy.ms);
  const policyMs = policy.ms.reduce((a, b) => a + b, 0);
  return { result, rows, policyMs, infra: repoEpisodeInfra(result) };
}

/**
 * Whether a repository episode counts: null, or the infrastructure failure (the episode's
 * sandbox, or the grader) that makes it retried or masked, never scored.
 */
export function repoEpisodeInfra(result: Pick<AgentEpisodeResult<RepoGrade>, 'end' | 'error' | 'grade'>): PlayedRepoEpisode['infra'] {
  if (result.end === 'sandbox_error') {
    const reason = `sandbox_error: ${result.error ?? 'no detail'}`;
    return { status: /env_mismatch/.test(reason) ? 'env_mismatch' : 'sandbox_error', reason };
  }
  const grade = result.grade;
  if (!grade || grade.status === 'infra_error' || grade.reward === null) {
    const reason = `grader infra_error: ${grade?.error ?? 'not graded'}`;
    return { status: /env_mismatch/.test(reason) ? 'env_mismatch' : 'sandbox_error', reason };
  }
  return null;
}

/**
 * A played repository episode as the episode writer stores it (server/episodes/record.ts): its
 * turn rows, the infrastructure failure or the reward `score` gives its grade (with the
 * grader's env hash and `repoHarnessVersion` as provenance), and the grade and patch.
 */
export function playedRepoEpisode(
  task: Pick<RepoTask, 'workspaceSha256'>,
  played: Pick<PlayedRepoEpisode, 'result' | 'rows' | 'infra'>,
  score: (grade: RepoGrade) => { reward: number; components: Record<string, number> },
  summary: Record<string, unknown>,
): PlayedEpisode {
  const { result, rows, infra } = played;
  const grade = result.grade;
  const scored = infra ? null : score(grade!);
  return {
    turns: rows,
    infra: infra && { status: infra.status, reason: infra.reason.slice(0, 480) },
    reward: scored && {
      value: scored.reward,
      components: scored.components,
      envHash: grade!.envHash,
      harnessVersion: repoHarnessVersion(task.workspaceSha256),
    },
    runtime: grade?.runtime || result.runtime,
    envHash: grade?.envHash || null,
    grading: episodeGrading(result),
    endReason: result.end,
    summary,
  };
}

/** What episodes.grading keeps: the grade, the patch it graded and why the episode ended. */
export function episodeGrading(r: AgentEpisodeResult<RepoGrade>): EpisodeGrading | null {
  if (!r.grade) return null;
  // patch null with a grade: the agent left the workspace unreadable (graded 0, nothing to show)
  return { ...r.grade, error: r.grade.error && withoutNul(r.grade.error), patch: withoutNul(r.patch ?? ''), binarySkipped: r.binarySkipped, end: r.end };
}

/**
 * The reward's provenance: the grader's version and the task workspace's content hash (rewards
 * has no column of its own for the workspace, so the harness version names both).
 */
export const repoHarnessVersion = (workspaceSha256: string) => `${REPO_GRADER_VERSION}@workspace:${workspaceSha256}`;
