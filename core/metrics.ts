/**
 * Metric names: the contract between what writes `metric_samples` rows (the RL learner in
 * workers/rl, the metrics worker and the scheduler) and what reads them (the run and compare
 * charts in components/runs, /resources and /api/metrics in server/resources). A name
 * spelled differently on the two sides used to be a chart that silently stayed empty; typed
 * here, it is a type error. Imports nothing from the project.
 */

/** `metric_samples.source` of each writer. */
export const METRIC_SOURCES = {
  /** Per-iteration RL metrics of a run (run_id set, step = the policy version they describe). */
  rl: 'rl',
  /** Node, queue and scheduler figures (no run); rolled up into coarser sources, see RESOURCE_ROLLUPS. */
  resources: 'resources',
} as const;
export type MetricSource = (typeof METRIC_SOURCES)[keyof typeof METRIC_SOURCES];

// ---- RL run metrics -----------------------------------------------------------------------

/** Written by the learner step once per iteration, unlabelled, at step = the new policy version. */
export const RL_ITERATION_METRICS = [
  'reward_mean',
  'reward_std',
  'reward_min',
  'reward_max',
  'heldout_pass_at_1',
  'kl',
  'entropy',
  'clip_fraction',
  'loss',
  'grad_norm',
  'response_length',
  'turns_per_episode',
  'episode_time_ms',
  'sandbox_time_share',
  'tokens_per_s',
  'generated_tokens',
  'iteration_time_s',
  'update_time_s',
  'infra_failed_rate',
  'zero_variance_group_share',
  'pass_rate',
  'style',
  'efficiency',
  'trained_sequences',
  'optimizer_steps',
  'overlong_masked_turns',
  'dual_clip_fraction',
  'skipped_updates',
  'kl_reward_penalty',
  'logprob_mismatch',
  'solved_rate',
  'valid_tool_calls_per_turn',
] as const;
export type RlIterationMetric = (typeof RL_ITERATION_METRICS)[number];

/** Iteration metrics that exist only for some runs: see RlIterationMetrics. */
type OptionalIterationMetric = 'logprob_mismatch' | 'solved_rate' | 'valid_tool_calls_per_turn';

/**
 * One iteration's metrics as the learner computes them: every name above, except
 * `logprob_mismatch`, which exists only when an optimizer step ran, and the agent metrics,
 * which exist only for repository-task (agent) episodes: `solved_rate` (the share of the
 * batch's scored episodes with every FAIL_TO_PASS and PASS_TO_PASS test passing, SWE-bench's
 * "resolved") and `valid_tool_calls_per_turn` (tool calls that ran, i.e. were readable, named
 * an offered tool and had valid arguments, per assistant message). An extra or misspelled key
 * is a type error at the write site.
 */
export type RlIterationMetrics = Record<Exclude<RlIterationMetric, OptionalIterationMetric>, number> & Partial<Record<OptionalIterationMetric, number>>;

/** Every RL metric: the iteration metrics, plus those written at step 0 or with labels. */
export const RL_METRICS = [
  ...RL_ITERATION_METRICS,
  /** pass@k on held-out tasks, labelled `k` (every few iterations, and at the start and end). */
  'heldout_pass_at_k',
  /** Greedy pass@1 of the random initialisation, before the SFT warm start (step 0). */
  'heldout_pass_at_1_before_sft',
  /** Infrastructure-failed episodes per iteration, labelled by episode `status`. */
  'sandbox_failures',
] as const;
export type RlMetric = (typeof RL_METRICS)[number];

/** A chart section of the run and compare pages. */
export type RlMetricSection = { title: string; metrics: readonly RlMetric[] };

/**
 * The sections an operator reads top to bottom; reward and held-out pass@1 first. Metrics
 * not named here go to "Other" alphabetically (e.g. a trainer's own samples);
 * core/metrics.unit.test.ts checks every RL metric has a place here or in RL_REWARD_SPREAD.
 */
export const RL_METRIC_SECTIONS: readonly RlMetricSection[] = [
  { title: 'Reward and pass rate', metrics: ['reward_mean', 'solved_rate', 'heldout_pass_at_1', 'heldout_pass_at_k', 'heldout_pass_at_1_before_sft'] },
  {
    title: 'Policy update',
    metrics: [
      'kl',
      'entropy',
      'clip_fraction',
      'dual_clip_fraction',
      'loss',
      'grad_norm',
      'skipped_updates',
      'logprob_mismatch',
      'kl_reward_penalty',
      'trained_sequences',
      'optimizer_steps',
      'overlong_masked_turns',
    ],
  },
  {
    title: 'Lengths, turns and time',
    metrics: [
      'response_length',
      'generated_tokens',
      'turns_per_episode',
      'valid_tool_calls_per_turn',
      'episode_time_ms',
      'iteration_time_s',
      'update_time_s',
      'tokens_per_s',
      'sandbox_time_share',
    ],
  },
  { title: 'Health', metrics: ['infra_failed_rate', 'zero_variance_group_share', 'sandbox_failures'] },
  { title: 'Reward components', metrics: ['pass_rate', 'style', 'efficiency'] },
];

/** Drawn inside the reward_mean chart (spread of the iteration's rewards), not as charts of their own. */
export const RL_REWARD_SPREAD = ['reward_min', 'reward_max', 'reward_std'] as const satisfies readonly RlMetric[];

// ---- Resource metrics ---------------------------------------------------------------------

/**
 * Stored resolutions of resource samples: raw, then averages per bucket, each kept for
 * `keepMs`. The metrics worker rolls finer into coarser ones; /resources reads the finest
 * one that still covers its window.
 */
export const RESOURCE_ROLLUPS = [
  { source: METRIC_SOURCES.resources, bucketMs: 0, keepMs: 3_600_000 },
  { source: `${METRIC_SOURCES.resources}:1m`, bucketMs: 60_000, keepMs: 86_400_000 },
  { source: `${METRIC_SOURCES.resources}:10m`, bucketMs: 600_000, keepMs: 30 * 86_400_000 },
] as const;

/** Windows the /resources charts offer, and how far back each reaches. */
export const RESOURCE_WINDOWS = ['15m', '1h', '24h', '7d'] as const;
export type ResourceWindow = (typeof RESOURCE_WINDOWS)[number];
export const RESOURCE_WINDOW_MS: Record<ResourceWindow, number> = { '15m': 900_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

/** A `metric_samples` row of an RL run's metric; `name` must be one of RL_METRICS. */
export function rlSample(runId: string, name: RlMetric, step: number, value: number, labels?: Record<string, string>) {
  return { runId, source: METRIC_SOURCES.rl, name, step, value, ...(labels ? { labels } : {}) };
}

/** How many runs one comparison may hold: beyond this the charts stop being readable (the API refuses more, the runs page disables Compare). */
export const COMPARE_MAX_RUNS = 8;
