import type { RlIterationMetrics } from '@/core/metrics';
import type { StepsSummary } from '../learner-steps';
import type { HeldoutEval } from '../evaluate';

/** An iteration's episode (any status) with its timing. */
export type IterationEpisode = { e: { id: string; status: string; startedAt: Date | null; finishedAt: Date | null } };
/** A turn's timing and token counts, and an agent turn's tool calls (null for other kinds). */
export type IterationTurn = {
  episodeId: string;
  policyMs: number | null;
  sandboxMs: number | null;
  lossMask: number[] | null;
  toolCalls?: { rejected?: string }[] | null;
};
/** What the learner's steps reported (null when no step ran). */
export type UpdateReport =
  | (Pick<StepsSummary, 'kl' | 'entropy' | 'clipFraction' | 'loss' | 'gradNorm' | 'dualClipFraction' | 'logprobMismatch' | 'skipped' | 'steps'> & {
      sequences: number;
    })
  | null;

/** Episode statuses that are infrastructure failures (masked, never scored). */
export const INFRA_STATUSES = ['sandbox_error', 'env_mismatch', 'preempted'] as const;
const isInfra = (status: string) => (INFRA_STATUSES as readonly string[]).includes(status);

const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
const std = (a: number[]) => {
  const m = mean(a);
  return Math.sqrt(mean(a.map((x) => (x - m) ** 2)));
};

/** Episodes that finished (any outcome): the ones the iteration's time and failure metrics cover. */
export const finishedEpisodes = <T extends IterationEpisode>(eps: T[]): T[] => eps.filter(({ e }) => e.status !== 'pending' && e.status !== 'running');

/**
 * The metrics one iteration records (names are the charts' contract): rewards of the batch,
 * held-out pass@1, the learner's step means, rollout timing and failure shares. `now` is
 * the iteration's end (the wall time since its first episode started is iteration_time_s).
 * Also the count of infrastructure failures by status (`sandbox_failures`).
 */
export function iterationMetrics(i: {
  episodes: IterationEpisode[];
  /** the batch selectBatch chose (its rewards' components feed pass_rate, style, efficiency) */
  batch: {
    valid: { r: { components: Record<string, number | undefined> } | null }[];
    rewards: number[];
    groups: Map<number, number[]>;
    zeroVarianceGroups: number;
  };
  turns: IterationTurn[];
  report: UpdateReport;
  heldout: Pick<HeldoutEval, 'passAt1'>;
  maskedOverlong: number;
  klRewardPenalty: number;
  updateS: number;
  now: number;
}): { metrics: RlIterationMetrics; failures: Map<string, number> } {
  const { batch, report, turns } = i;
  const rs = batch.rewards;
  const all = finishedEpisodes(i.episodes);
  const infra = all.filter(({ e }) => isInfra(e.status));
  const policyMs = turns.reduce((a, t) => a + (t.policyMs ?? 0), 0);
  const sandboxMs = turns.reduce((a, t) => a + (t.sandboxMs ?? 0), 0);
  const genTokens = turns.reduce((a, t) => a + (t.lossMask ?? []).reduce((x, y) => x + y, 0), 0);
  const starts = all.map(({ e }) => e.startedAt?.getTime() ?? i.now);
  const epTimes = all.map(({ e }) => (e.finishedAt?.getTime() ?? 0) - (e.startedAt?.getTime() ?? 0));
  const component = (k: string) => mean(batch.valid.map(({ r }) => r!.components[k] ?? 0));
  // agent episodes only: their grades carry `resolved`, their turns tool calls
  const graded = batch.valid.filter(({ r }) => r!.components.resolved !== undefined);
  const agentTurns = turns.filter((t) => t.toolCalls != null);
  const metrics: RlIterationMetrics = {
    reward_mean: mean(rs),
    reward_std: std(rs),
    reward_min: rs.length ? Math.min(...rs) : 0,
    reward_max: rs.length ? Math.max(...rs) : 0,
    heldout_pass_at_1: i.heldout.passAt1,
    kl: report?.kl ?? 0,
    entropy: report?.entropy ?? 0,
    clip_fraction: report?.clipFraction ?? 0,
    loss: report?.loss ?? 0,
    grad_norm: report?.gradNorm ?? 0,
    response_length: turns.length ? genTokens / turns.length : 0,
    turns_per_episode: all.length ? turns.length / all.length : 0,
    episode_time_ms: mean(epTimes),
    sandbox_time_share: policyMs + sandboxMs > 0 ? sandboxMs / (policyMs + sandboxMs) : 0,
    tokens_per_s: policyMs > 0 ? genTokens / (policyMs / 1000) : 0,
    // the charts' "generated tokens" x-axis sums these
    generated_tokens: genTokens,
    iteration_time_s: (i.now - Math.min(...starts, i.now)) / 1000,
    update_time_s: i.updateS,
    infra_failed_rate: all.length ? infra.length / all.length : 0,
    zero_variance_group_share: batch.groups.size ? batch.zeroVarianceGroups / batch.groups.size : 0,
    pass_rate: component('passRate'),
    style: component('style'),
    efficiency: component('efficiency'),
    trained_sequences: report?.sequences ?? 0,
    optimizer_steps: report?.steps ?? 0,
    overlong_masked_turns: i.maskedOverlong,
    dual_clip_fraction: report?.dualClipFraction ?? 0,
    skipped_updates: report?.skipped.length ?? 0,
    kl_reward_penalty: i.klRewardPenalty,
    // only when a step ran: its first step should see exactly the stored logprobs
    ...(report ? { logprob_mismatch: report.logprobMismatch } : {}),
    ...(graded.length ? { solved_rate: mean(graded.map(({ r }) => (r!.components.resolved === 1 ? 1 : 0))) } : {}),
    ...(agentTurns.length ? { valid_tool_calls_per_turn: mean(agentTurns.map((t) => t.toolCalls!.filter((c) => !c.rejected).length)) } : {}),
  };
  const failures = new Map<string, number>();
  for (const { e } of infra) failures.set(e.status, (failures.get(e.status) ?? 0) + 1);
  return { metrics, failures };
}
