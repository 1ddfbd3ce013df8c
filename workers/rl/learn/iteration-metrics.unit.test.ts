import { describe, expect, it } from 'vitest';
import { iterationMetrics, type IterationEpisode } from './iteration-metrics';

const t = (s: number) => new Date(1_000_000 + s * 1000);
const ep = (id: string, status: string, start: number | null, end: number | null): IterationEpisode => ({
  e: { id, status, startedAt: start == null ? null : t(start), finishedAt: end == null ? null : t(end) },
});
const valid = [
  {
    e: { id: 'a', status: 'scored', groupIndex: 0, policyVersionId: 'v' },
    r: { value: 1, disputed: null, correctedValue: null, components: { passRate: 1, style: 0.5, efficiency: 1 } },
  },
  {
    e: { id: 'b', status: 'scored', groupIndex: 0, policyVersionId: 'v' },
    r: { value: 0, disputed: null, correctedValue: null, components: { passRate: 0, style: 1 } },
  },
];
const base = {
  episodes: [ep('a', 'scored', 0, 2), ep('b', 'scored', 1, 3), ep('c', 'sandbox_error', 2, 3), ep('d', 'preempted', 2, 4), ep('e', 'pending', null, null)],
  batch: {
    valid,
    rewards: [1, 0],
    groups: new Map([
      [0, [1, 0]],
      [1, [1, 1]],
    ]),
    zeroVarianceGroups: 1,
  },
  turns: [
    { episodeId: 'a', policyMs: 300, sandboxMs: 100, lossMask: [0, 1, 1] },
    { episodeId: 'b', policyMs: 100, sandboxMs: 300, lossMask: [0, 0, 1, 1, 1, 1] },
  ],
  heldout: { passAt1: 0.75 },
  maskedOverlong: 2,
  klRewardPenalty: 0.01,
  updateS: 1.5,
  now: t(10).getTime(),
};
const report = {
  kl: 0.1,
  entropy: 2,
  clipFraction: 0.2,
  loss: -0.3,
  gradNorm: 4,
  dualClipFraction: 0.05,
  logprobMismatch: 1e-6,
  skipped: [{ index: 1, loss: NaN, gradNorm: NaN }],
  steps: 4,
  sequences: 7,
};

describe('iterationMetrics: the numbers one iteration records', () => {
  it('rewards, timing, failure shares and learner means from plain rows', () => {
    const { metrics: m, failures } = iterationMetrics({ ...base, report });
    expect(m).toMatchObject({
      reward_mean: 0.5,
      reward_std: 0.5,
      reward_min: 0,
      reward_max: 1,
      heldout_pass_at_1: 0.75,
      kl: 0.1,
      entropy: 2,
      clip_fraction: 0.2,
      loss: -0.3,
      grad_norm: 4,
      dual_clip_fraction: 0.05,
      logprob_mismatch: 1e-6,
      response_length: 3, // 6 generated tokens over 2 turns
      turns_per_episode: 0.5, // 2 turns over the 4 finished episodes (pending is not finished)
      episode_time_ms: 1750, // (2 + 2 + 1 + 2) s / 4
      sandbox_time_share: 0.5,
      tokens_per_s: 15, // 6 tokens in 0.4 s of policy time
      generated_tokens: 6,
      iteration_time_s: 10,
      update_time_s: 1.5,
      infra_failed_rate: 0.5,
      zero_variance_group_share: 0.5,
      pass_rate: 0.5,
      style: 0.75,
      efficiency: 0.5, // a missing component counts 0
      trained_sequences: 7,
      optimizer_steps: 4,
      overlong_masked_turns: 2,
      skipped_updates: 1,
      kl_reward_penalty: 0.01,
    });
    expect([...failures]).toEqual([
      ['sandbox_error', 1],
      ['preempted', 1],
    ]);
  });

  it('no learner step: zeros, and no logprob_mismatch (it is only meaningful when a step ran)', () => {
    const { metrics: m } = iterationMetrics({ ...base, report: null });
    expect(m).toMatchObject({ kl: 0, loss: 0, trained_sequences: 0, optimizer_steps: 0, skipped_updates: 0 });
    expect('logprob_mismatch' in m).toBe(false);
  });

  it('an empty iteration is all zeros, never NaN', () => {
    const { metrics: m } = iterationMetrics({
      ...base,
      episodes: [],
      batch: { valid: [], rewards: [], groups: new Map(), zeroVarianceGroups: 0 },
      turns: [],
      report: null,
    });
    for (const [name, v] of Object.entries(m))
      if (name !== 'heldout_pass_at_1' && name !== 'update_time_s' && name !== 'overlong_masked_turns' && name !== 'kl_reward_penalty')
        expect([name, v]).toEqual([name, 0]);
  });
  it('agent runs: the share of graded episodes that resolved their task, and valid tool calls per assistant message', () => {
    const agentValid = [
      { ...valid[0]!, r: { ...valid[0]!.r, components: { resolved: 1, f2p: 1 } } },
      { ...valid[1]!, r: { ...valid[1]!.r, components: { resolved: 0, f2p: 0.5 } } },
      { ...valid[1]!, r: { ...valid[1]!.r, components: { resolved: 0 } } },
    ];
    const agentTurns = [
      { episodeId: 'a', policyMs: 1, sandboxMs: 1, lossMask: [1], toolCalls: [{}, { rejected: 'bad_arguments' }] },
      { episodeId: 'a', policyMs: 1, sandboxMs: 1, lossMask: [1], toolCalls: [] },
      { episodeId: 'b', policyMs: 1, sandboxMs: 1, lossMask: [1], toolCalls: [{}, {}, { rejected: 'malformed' }] },
    ];
    const { metrics: m } = iterationMetrics({ ...base, report, batch: { ...base.batch, valid: agentValid, rewards: [1, 0.5, 0] }, turns: agentTurns });
    expect(m.solved_rate).toBeCloseTo(1 / 3);
    expect(m.valid_tool_calls_per_turn).toBeCloseTo((1 + 0 + 2) / 3);
    // other kinds record neither
    const { metrics: io } = iterationMetrics({ ...base, report });
    expect(io.solved_rate).toBeUndefined();
    expect(io.valid_tool_calls_per_turn).toBeUndefined();
  });
});
