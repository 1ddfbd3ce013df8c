import { z } from 'zod';
import { runAlertSettings } from '@/core/alerts';
import { TOOL_CALL_FORMATS } from '@/core/tool-call-formats';
import { SCHEDULING_TIERS } from '@/core/queues';
import { sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { AGENT_TOOL_NAMES, DEFAULT_AGENT_TOOLS, type AgentToolName } from '@/core/repo-tasks';
import { LORA_MODULES, modelName, PRECISIONS } from '@/core/models';

/** Sandbox runtimes a risk tier may be mapped to: the fixed list. Resolved at run start; missing → refuse. */
export const runtimeName = sandboxRuntimeName;

export const rewardWeights = z
  .object({
    passRate: z.number().min(0).max(10).default(1),
    style: z.number().min(0).max(10).default(0.1),
    efficiency: z.number().min(0).max(10).default(0.1),
  })
  .refine((w) => w.passRate + w.style + w.efficiency > 0, { message: 'at least one reward weight must be positive' });

/**
 * How a repository task's tests become its test score (lib/agent/grade/repo-reward.ts):
 * the weighted pass fractions of FAIL_TO_PASS and PASS_TO_PASS, zero when any PASS_TO_PASS
 * test breaks (`p2pGate`, as SWE-bench). The run's `rewardWeights` then blend that score
 * (as passRate) with the patch's style and the episode's efficiency (workers/rl/repo-episode-reward.ts).
 */
export const repoRewardWeights = z
  .object({
    f2p: z.number().min(0).max(10).default(1),
    p2p: z.number().min(0).max(10).default(0),
    p2pGate: z.boolean().default(true),
  })
  .strict()
  .refine((w) => w.f2p + w.p2p > 0, { message: 'repoRewardWeights: f2p or p2p must be positive' });

/**
 * What a repository episode is rewarded with (workers/rl/repo-episode-reward.ts): `fraction`,
 * the test score by `repoRewardWeights` blended with style and efficiency by `rewardWeights`;
 * or `resolved`, SWE-bench's binary reward: 1 when every FAIL_TO_PASS and PASS_TO_PASS test
 * passes, else 0, nothing blended in (the other components are still recorded).
 */
export const REPO_REWARD_DEFINITIONS = ['fraction', 'resolved'] as const;

export const taskQuota = z.object({
  cpus: z.number().positive().max(64).default(2),
  memoryMb: z
    .number()
    .int()
    .min(64)
    .max(1024 * 1024)
    .default(4096),
  scratchMb: z
    .number()
    .int()
    .min(16)
    .max(10 * 1024 * 1024)
    .default(50 * 1024),
});

/**
 * The tools an agent on repository tasks may call (docs/agents.md, "RL on repository suites"):
 * a subset of AGENT_TOOL_NAMES, in their canonical order; `submit` is always included, since
 * an agent must be able to end its episode.
 */
export const agentToolSet = z
  .array(z.enum(AGENT_TOOL_NAMES))
  .max(AGENT_TOOL_NAMES.length)
  .transform((names): AgentToolName[] => AGENT_TOOL_NAMES.filter((n) => n === 'submit' || names.includes(n)));

/**
 * The policy a run trains (issue 15): Crucible's built-in byte model, created from scratch
 * (with the SFT warm start on the suite's demonstrations), or a registered Hugging Face model
 * (`models import`) trained in full or through a LoRA adapter on the modules named.
 */
export const policyChoice = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('byte') }).strict(),
    z
      .object({
        kind: z.literal('hf'),
        /** a registered model's name (`crucible models list`) */
        model: modelName,
        training: z.enum(['full', 'lora']).default('lora'),
        /** matrix products in float32, or on fp16 / bf16 operands with float32 master weights */
        precision: z.enum(PRECISIONS).default('fp32'),
        lora: z
          .object({
            rank: z.number().int().min(1).max(256).default(8),
            alpha: z.number().positive().max(4096).default(16),
            targetModules: z
              .array(z.enum(LORA_MODULES))
              .min(1, `LoRA needs at least one target module (${LORA_MODULES.join(', ')})`)
              .refine((m) => new Set(m).size === m.length, 'each LoRA target module may be listed only once')
              .default(['q_proj', 'v_proj']),
          })
          .strict()
          .default({ rank: 8, alpha: 16, targetModules: ['q_proj', 'v_proj'] }),
      })
      .strict(),
  ])
  .default({ kind: 'byte' });
export type PolicyChoice = z.output<typeof policyChoice>;
export type PolicyChoiceInput = z.input<typeof policyChoice>;

/** A run's policy in words, as the console and the CLI show it (a config from before `policy` existed trains the byte model). */
export function describePolicy(policy: PolicyChoice | undefined): { model: string | null; training: string } {
  if (!policy || policy.kind === 'byte') return { model: null, training: 'byte model (built-in)' };
  // a config from before `precision` existed computed in float32
  const precision = policy.precision && policy.precision !== 'fp32' ? ` · ${policy.precision} mixed precision` : '';
  if (policy.training === 'full') return { model: policy.model, training: `full fine-tuning${precision}` };
  const { rank, alpha, targetModules } = policy.lora;
  return { model: policy.model, training: `LoRA r=${rank} α=${alpha} on ${targetModules.join(', ')}${precision}` };
}

/** How this run's rewards are spot-checked (issue: reward spot checks). */
export const reviewConfig = z.object({
  /** share of scored episodes sampled for review; never below 5% */
  rate: z.number().min(0.05, 'at least 5% of rewards must be reviewed').max(1).default(0.05),
  /** share of sampled episodes reviewed twice, for agreement (kappa) */
  doubleReviewShare: z.number().min(0).max(1).default(0.1),
  /** hide run name, policy version and the automatic reward until the verdict is given */
  blind: z.boolean().default(true),
  /** what training does with a disputed reward */
  disputed: z.enum(['exclude', 'replace']).default('exclude'),
  /** rewards within 0.05 of these count as boundary cases */
  thresholds: z.array(z.number().min(0).max(1)).max(10).default([0.5]),
});

/** The config marker of a run of stored `crucible episode run` episodes (RunConfig.origin). */
export const EPISODE_RUN_ORIGIN = 'episode-run';

/**
 * The full, validated configuration of a training run. Every field has a sensible
 * default so `runs.create({name, suite})` is enough; bounds catch typos early.
 */
export const runConfigFields = z
  .object({
    algorithm: z.enum(['grpo', 'ppo']).default('grpo'),
    policy: policyChoice,
    suite: z.string().min(1, 'choose a task suite').max(200).default('builtin'),
    /**
     * Curriculum: the train-split tasks (external ids, e.g. "py/add_7") that episodes are
     * sampled from; empty = the whole train split. The SFT warm start still uses every train
     * demonstration. A small set the warm-started policy solves sometimes is where RL shows
     * (docs/rl.md, "Learning").
     */
    trainTasks: z
      .array(z.string().min(1).max(200))
      .max(1000)
      .refine((ids) => new Set(ids).size === ids.length, 'each train task may be listed only once')
      .default([]),
    groupSize: z.number().int().min(1).max(256).default(8),
    tasksPerIteration: z.number().int().min(1).max(10_000).default(8),
    iterations: z.number().int().min(1).max(100_000).default(20),
    /** Turns per episode: attempts of an input/output task, assistant messages of an agent on a repository task. */
    maxTurns: z.number().int().min(1).max(200).default(3),
    /** Repository tasks: the tools the agent gets (submit always); calls to others are error observations. */
    tools: agentToolSet.default([...DEFAULT_AGENT_TOOLS]),
    /**
     * Repository tasks: the whole episode's token budget (prompt, every message). It is also
     * the context (maxSeqLen) of the policy such a run creates, so every episode fits the
     * learner as one sequence. The byte model's prompt with all five tools is about 3.5k tokens.
     */
    agentTokenBudget: z.number().int().min(1024).max(131_072).default(4096),
    /** Repository tasks: tokens one assistant message may have (capped by what is left of the budget). */
    agentMaxNewTokens: z.number().int().min(1).max(8192).default(256),
    /** Repository tasks: wall clock of the agent's turns in one episode, in seconds (setup and grading not included). */
    agentTimeBudgetS: z.number().int().min(10).max(3600).default(300),
    /** Repository tasks: bytes of one tool call's output the agent sees; the middle of longer output is cut with a marker. */
    agentToolOutputBytes: z.number().int().min(1024).max(1_048_576).default(16_384),
    /**
     * Repository tasks: the agent's system prompt (held-out evaluation and exports use it too).
     * Default: Crucible's, which says how the model's family writes tool calls (lib/agent/episode/system-prompt.ts).
     */
    agentSystemPrompt: z.string().trim().min(1, 'the system prompt is empty: leave it out for the default').max(20_000).optional(),
    /**
     * Repository tasks on a Hugging Face model: how its messages write tool calls
     * (core/tool-call-formats.ts). Default: what its chat template renders.
     */
    toolCallFormat: z.enum(TOOL_CALL_FORMATS).optional(),
    /**
     * Repository tasks on a Hugging Face model: variables its chat template reads besides the
     * conversation, e.g. {"enable_thinking": false} for Qwen3's non-thinking mode.
     */
    chatTemplateArgs: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a template variable name (letters, digits, _)'),
        z.union([z.boolean(), z.number(), z.string().max(1000)]),
      )
      .refine((o) => Object.keys(o).length <= 16, 'at most 16 template variables')
      .optional(),
    concurrency: z.number().int().min(1).max(10_000).default(4),
    /**
     * RL learning rate. 0 means "no update": the policy stays at v0 (after the warm start)
     * for the whole run, which is what a control arm is (docs/rl.md, "Control arm").
     */
    learningRate: z.number().min(0, 'learning rate must be 0 (no update, a control arm) or positive').max(1).default(3e-4),
    klCoef: z.number().min(0).max(10).default(0.02),
    clipLow: z.number().min(0).max(1).default(0.2),
    clipHigh: z.number().min(0).max(1).default(0.28),
    /**
     * Sampling temperature of training episodes (and held-out pass@k). The learner trains on
     * the logprobs of this tempered distribution, so 0 (greedy, which has none) is refused;
     * held-out pass@1 is greedy regardless.
     */
    temperature: z
      .number()
      .gt(
        0,
        'temperature must be above 0 for a training run: greedy decoding (0) has no sampling distribution for the loss; use e.g. 1 (held-out pass@1 is already greedy)',
      )
      .max(5)
      .default(1),
    topP: z.number().gt(0).max(1).default(1),
    rewardWeights: rewardWeights.default({ passRate: 1, style: 0.1, efficiency: 0.1 }),
    repoRewardWeights: repoRewardWeights.default({ f2p: 1, p2p: 0, p2pGate: true }),
    repoReward: z.enum(REPO_REWARD_DEFINITIONS).default('fraction'),
    isolation: z.object({ routine: runtimeName.default('bwrap'), high: runtimeName.default('bwrap') }).default({ routine: 'bwrap', high: 'bwrap' }),
    quota: taskQuota.default({ cpus: 2, memoryMb: 4096, scratchMb: 50 * 1024 }),
    queue: z.enum(SCHEDULING_TIERS).default('standard'),
    priority: z.number().int().min(0).max(1000).default(100),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(1),
    /**
     * Dynamic sampling: groups whose rewards are all equal carry no signal; drop them from
     * the batch and sample extra groups (up to `maxGroupsFactor` × tasksPerIteration) until
     * tasksPerIteration groups with signal are in hand.
     */
    dynamicSampling: z
      .object({ enabled: z.boolean().default(false), maxGroupsFactor: z.number().min(1).max(10).default(2) })
      .default({ enabled: false, maxGroupsFactor: 2 }),
    /** Overlong masking: responses cut off at the token budget are left out of the loss. */
    maskTruncated: z.boolean().default(false),
    /**
     * Weight of negative advantages in the GRPO loss (1 = standard GRPO). Below 1 the update
     * leans on what worked: when a small policy rarely succeeds, full-weight pushes away
     * from its many failures spread probability onto garbage and collapse it (measured:
     * docs/rl.md); 0 trains on successes only, like rejection-sampling fine-tuning.
     */
    negativeAdvantageWeight: z.number().min(0).max(1).default(1),
    /** Learner passes over each iteration's batch, and the minibatches (one optimizer step each) per pass. */
    updateEpochs: z.number().int().min(1).max(20).default(2),
    miniBatches: z.number().int().min(1).max(64).default(2),
    /** Staleness bound k: episodes sampled by a policy more than k versions old are dropped from the loss. */
    maxStaleness: z.number().int().min(0).max(100).default(1),
    // Learner options (docs/rl.md, "Learner options"); the defaults keep the standard GRPO/PPO loss.
    /** GRPO: divide group-relative advantages by the group's reward std; false is Dr. GRPO's r − mean. */
    scaleAdvantagesByStd: z.boolean().default(true),
    /**
     * How per-token losses are averaged in a step: 'token' (every token equally), 'sequence'
     * (every sequence equally), 'token-sum-norm' (Dr. GRPO: each sequence's token sum
     * divided by the per-turn token budget, averaged over sequences).
     */
    lossAggregation: z.enum(['token', 'sequence', 'token-sum-norm']).default('token'),
    /** Entropy bonus: the loss subtracts this times the mean token entropy. */
    entropyCoef: z.number().min(0).max(1).default(0),
    /** Dual clip c: for negative advantages the per-token loss is capped at c·|A| (verl's clip_ratio_c). */
    clipRatioC: z.number().gt(1, 'clipRatioC must be above 1; raise it (e.g. 100) to make the dual clip inactive').max(1000).default(3),
    /**
     * Where the KL to the reference (v0) goes when klCoef > 0: 'loss' adds klCoef × the
     * estimator per token to the loss; 'reward' subtracts klCoef × the sampling policy's KL
     * from the reward before advantages are computed.
     */
    klIn: z.enum(['loss', 'reward']).default('loss'),
    /** KL estimator, with lr = log π − log π_ref: k1 = lr, k2 = lr²/2, k3 = exp(−lr) + lr − 1. */
    klEstimator: z.enum(['k1', 'k2', 'k3']).default('k3'),
    /** PPO: weight of the value loss, and how far a value may move from its old estimate before the clipped loss takes over. */
    valueCoef: z.number().min(0).max(10).default(0.5),
    valueClip: z.number().positive().max(100).default(0.2),
    /** PPO: whiten advantages across the batch's policy tokens (mean 0, std 1). */
    whitenAdvantages: z.boolean().default(false),
    review: reviewConfig.default({ rate: 0.05, doubleReviewShare: 0.1, blind: true, disputed: 'exclude', thresholds: [0.5] }),
    /**
     * Held-out evaluation of every policy version (docs/rl.md): how many held-out tasks, and
     * pass@k with k samples every `passAtKEvery` versions (and the last). Unset: the
     * deployment's CRUCIBLE_RL_HELDOUT_LIMIT, CRUCIBLE_RL_PASS_K, CRUCIBLE_RL_PASS_K_EVERY.
     */
    heldout: z
      .object({
        /** 0: every held-out task of the suite */
        tasks: z.number().int().min(0).max(10_000).optional(),
        passAtK: z.number().int().min(0, '0 turns pass@k off').max(64).optional(),
        passAtKEvery: z.number().int().min(0).max(10_000).optional(),
      })
      .strict()
      .optional(),
    /** This run's alert thresholds and rules turned off (core/alerts.ts; docs/monitoring.md). Default: the cluster's. */
    alerts: runAlertSettings.optional(),
    /**
     * Set only on a run that holds episodes stored by `crucible episode run --store`: scripted
     * policies, nothing trained; created completed, never played by the RL loop (docs/agents.md).
     * Launching or cloning such a config is refused.
     */
    origin: z.literal(EPISODE_RUN_ORIGIN).optional(),
  })
  .strict();

/** A run's config. */
export const runConfigSchema = runConfigFields;

export type RunConfig = z.output<typeof runConfigSchema>;
export type RunConfigInput = z.input<typeof runConfigSchema>;

export const defaultRunConfig: RunConfig = runConfigSchema.parse({});

/**
 * Sandbox limits of one RL episode's test run (capped by the run's quota where that is
 * smaller): the candidate is a single small function, so half a vCPU, 512 MB and a 256 MB
 * scratch are plenty and a 2-core host runs several. The scheduler requests the same.
 */
export const episodeSandboxLimits = { cpus: 0.5, memoryMb: 512, diskMb: 256 } as const;
