import { defaultRunConfig, type RunConfig } from '@/core/run-config';
import { SCHEDULING_TIERS } from '@/core/queues';
import { must } from '@/core/must';
import { PROBED_RUNTIME_NAMES } from '@/core/sandbox-runtimes';
import { AGENT_TOOL_NAMES } from '@/core/repo-tasks';
import { policyFromValues, policyValues } from './policy-fields';

/**
 * The isolation choices: one name per runtime (the form marks those no sandbox host has); a
 * copied run's alias (e.g. `oci:runsc`) is added to its own select so it keeps what it named.
 */
const ISOLATION_RUNTIMES = PROBED_RUNTIME_NAMES;

/** One editable config value; `path` is its dotted location in RunConfig. */
export type FieldSpec = {
  path: string;
  label: string;
  /** checkboxes: one per option, the value a comma-separated list of the checked ones */
  kind: 'number' | 'text' | 'textarea' | 'select' | 'checkboxes';
  options?: readonly string[];
  step?: string;
  help?: string;
  /** how a select/text value becomes config: 'boolean' ("true"/"false"), 'numbers' or 'strings' (comma-separated) */
  parse?: 'boolean' | 'numbers' | 'strings';
  /** empty means "the deployment's default", decided at launch: the field is left out of the config */
  deploymentDefault?: boolean;
  /** empty means "Crucible's default": the field is left out of the config */
  optional?: boolean;
  /** checkboxes that are always checked (the agent's `submit`) */
  fixed?: readonly string[];
  /** only repository tasks read it: hidden for other suites (the value still goes into the config) */
  repoOnly?: boolean;
};

/** `repoOnly`: shown only when the chosen suite holds repository tasks (the values still go into the config). */
export type FieldGroup = { title: string; fields: FieldSpec[]; repoOnly?: boolean };

export const fieldGroups: FieldGroup[] = [
  {
    title: 'Algorithm and data',
    fields: [
      {
        path: 'algorithm',
        label: 'Algorithm',
        kind: 'select',
        options: ['grpo', 'ppo'],
        help: 'GRPO: group-relative advantages; PPO: clipped policy gradient with a value baseline.',
      },
      { path: 'suite', label: 'Task suite', kind: 'text', help: 'Tasks are sampled from this suite.' },
      {
        path: 'trainTasks',
        label: 'Curriculum (train task ids)',
        kind: 'text',
        parse: 'strings',
        help: 'Comma-separated, e.g. py/add_7, js/take_4; empty = the whole train split.',
      },
      { path: 'seed', label: 'Seed', kind: 'number', step: '1' },
    ],
  },
  {
    title: 'Scale',
    fields: [
      { path: 'groupSize', label: 'Group size', kind: 'number', step: '1', help: 'Episodes sampled per task.' },
      { path: 'tasksPerIteration', label: 'Tasks per iteration', kind: 'number', step: '1' },
      { path: 'iterations', label: 'Iterations', kind: 'number', step: '1' },
      {
        path: 'maxTurns',
        label: 'Max turns per episode',
        kind: 'number',
        step: '1',
        help: 'Input/output tasks: attempts. Repository tasks: the agent’s tool-call turns; read, edit, test and submit take at least 4, so give an agent 10–30.',
      },
      { path: 'concurrency', label: 'Concurrent episodes', kind: 'number', step: '1' },
    ],
  },
  {
    title: 'Agent (repository tasks)',
    repoOnly: true,
    fields: [
      {
        path: 'tools',
        label: 'Tools',
        kind: 'checkboxes',
        options: AGENT_TOOL_NAMES,
        fixed: ['submit'],
        parse: 'strings',
        help: 'What the agent may call; submit is always given. Other calls get an error observation.',
      },
      {
        path: 'agentTokenBudget',
        label: 'Token budget per episode',
        kind: 'number',
        step: '1',
        help: 'The whole conversation; also the byte policy’s context. The five default tools’ prompt is about 3.5k bytes; each other tool’s schema adds 300–650.',
      },
      { path: 'agentMaxNewTokens', label: 'Tokens per message', kind: 'number', step: '1' },
      { path: 'agentTimeBudgetS', label: 'Time budget per episode (s)', kind: 'number', step: '1', help: 'The agent’s turns; setup and grading not included.' },
      {
        path: 'agentSystemPrompt',
        label: 'System prompt',
        kind: 'textarea',
        optional: true,
        help: 'Empty: Crucible’s, which tells the model how its family writes tool calls. Held-out evaluation and exports use the same.',
      },
      {
        path: 'agentToolOutputBytes',
        label: 'Tool output shown (bytes)',
        kind: 'number',
        step: '1',
        help: 'Of one call’s output; the middle of longer output is cut.',
      },
    ],
  },
  {
    title: 'Optimisation and sampling',
    fields: [
      { path: 'learningRate', label: 'Learning rate', kind: 'number', step: 'any' },
      { path: 'klCoef', label: 'KL coefficient', kind: 'number', step: 'any' },
      { path: 'clipLow', label: 'Clip ratio (low)', kind: 'number', step: 'any' },
      { path: 'clipHigh', label: 'Clip ratio (high)', kind: 'number', step: 'any' },
      {
        path: 'temperature',
        label: 'Temperature',
        kind: 'number',
        step: 'any',
        help: 'Above 0: the learner trains on this distribution. Held-out pass@1 is greedy.',
      },
      { path: 'topP', label: 'Top-p', kind: 'number', step: 'any' },
    ],
  },
  {
    title: 'Learner',
    fields: [
      { path: 'updateEpochs', label: 'Passes over each batch', kind: 'number', step: '1' },
      { path: 'miniBatches', label: 'Minibatches per pass', kind: 'number', step: '1', help: 'One optimizer step each.' },
      {
        path: 'negativeAdvantageWeight',
        label: 'Negative advantage weight',
        kind: 'number',
        step: 'any',
        help: '1 = standard GRPO; lower leans on what worked (0 = successes only).',
      },
      { path: 'maxStaleness', label: 'Max staleness (versions)', kind: 'number', step: '1', help: 'Episodes from an older policy are dropped from the loss.' },
      {
        path: 'dynamicSampling.enabled',
        label: 'Dynamic sampling',
        kind: 'select',
        options: ['false', 'true'],
        parse: 'boolean',
        help: 'Sample extra groups when too many have equal rewards.',
      },
      {
        path: 'dynamicSampling.maxGroupsFactor',
        label: 'Max groups factor',
        kind: 'number',
        step: 'any',
        help: 'At most this many times the per-iteration task count.',
      },
      {
        path: 'maskTruncated',
        label: 'Mask overlong responses',
        kind: 'select',
        options: ['false', 'true'],
        parse: 'boolean',
        help: 'Responses cut off at the token budget stay out of the loss.',
      },
      {
        path: 'scaleAdvantagesByStd',
        label: 'Scale GRPO advantages by std',
        kind: 'select',
        options: ['true', 'false'],
        parse: 'boolean',
        help: 'false = Dr. GRPO (reward minus group mean only).',
      },
      {
        path: 'lossAggregation',
        label: 'Loss aggregation',
        kind: 'select',
        options: ['token', 'sequence', 'token-sum-norm'],
        help: 'token: every token equally; sequence: every sequence equally; token-sum-norm: Dr. GRPO.',
      },
      {
        path: 'entropyCoef',
        label: 'Entropy bonus coefficient',
        kind: 'number',
        step: 'any',
        help: '0 = off; the loss subtracts this times the mean entropy.',
      },
      { path: 'clipRatioC', label: 'Dual-clip c', kind: 'number', step: 'any', help: 'Above 1: caps the loss of negative-advantage tokens at c·|A|.' },
      {
        path: 'klIn',
        label: 'KL penalty in',
        kind: 'select',
        options: ['loss', 'reward'],
        help: 'Where klCoef applies: the loss, or the reward before advantages.',
      },
      {
        path: 'klEstimator',
        label: 'KL estimator',
        kind: 'select',
        options: ['k3', 'k1', 'k2'],
        help: 'k1 = log-ratio, k2 = half its square, k3 = low-variance, never negative.',
      },
      { path: 'valueCoef', label: 'Value loss coefficient (PPO)', kind: 'number', step: 'any' },
      { path: 'valueClip', label: 'Value clip (PPO)', kind: 'number', step: 'any', help: 'How far a value may move from its old estimate per update.' },
      {
        path: 'whitenAdvantages',
        label: 'Whiten advantages (PPO)',
        kind: 'select',
        options: ['false', 'true'],
        parse: 'boolean',
        help: 'Mean 0, std 1 over the batch.',
      },
    ],
  },
  {
    title: 'Reward weights',
    fields: [
      { path: 'rewardWeights.passRate', label: 'Pass rate', kind: 'number', step: 'any' },
      { path: 'rewardWeights.style', label: 'Style', kind: 'number', step: 'any' },
      { path: 'rewardWeights.efficiency', label: 'Efficiency', kind: 'number', step: 'any' },
      {
        path: 'repoReward',
        repoOnly: true,
        label: 'Repository reward',
        kind: 'select',
        options: ['fraction', 'resolved'],
        help: 'fraction: the test score below, blended with style and efficiency; resolved: SWE-bench’s 1 when every FAIL_TO_PASS and PASS_TO_PASS test passes, else 0.',
      },
      {
        path: 'repoRewardWeights.f2p',
        repoOnly: true,
        label: 'FAIL_TO_PASS weight (repository tasks)',
        kind: 'number',
        step: 'any',
        help: 'A repository task’s test score: the weighted pass fractions of FAIL_TO_PASS and PASS_TO_PASS; it is the “pass rate” above.',
      },
      { path: 'repoRewardWeights.p2p', label: 'PASS_TO_PASS weight (repository tasks)', kind: 'number', step: 'any', repoOnly: true },
      {
        path: 'repoRewardWeights.p2pGate',
        repoOnly: true,
        label: 'Zero when a PASS_TO_PASS test breaks',
        kind: 'select',
        options: ['true', 'false'],
        parse: 'boolean',
        help: 'As SWE-bench: a fix that breaks a passing test scores 0.',
      },
    ],
  },
  {
    title: 'Isolation and quota per task',
    fields: [
      {
        path: 'isolation.routine',
        label: 'Runtime, routine tasks',
        kind: 'select',
        options: ISOLATION_RUNTIMES,
        deploymentDefault: true,
        help: 'Default: gvisor (a user-space kernel) where installed. bwrap: namespaces + seccomp; microvm: a VM per sandbox. A runtime no sandbox host has is refused at launch; never downgraded.',
      },
      {
        path: 'isolation.high',
        label: 'Runtime, high-risk tasks',
        kind: 'select',
        options: ISOLATION_RUNTIMES,
        deploymentDefault: true,
        help: 'For tasks marked high risk. Default: microvm where installed, else the strongest there is (the run says which).',
      },
      { path: 'quota.cpus', label: 'vCPUs', kind: 'number', step: 'any' },
      { path: 'quota.memoryMb', label: 'Memory (MB)', kind: 'number', step: '1' },
      { path: 'quota.scratchMb', label: 'Scratch disk (MB)', kind: 'number', step: '1' },
    ],
  },
  {
    title: 'Reward review',
    fields: [
      { path: 'review.rate', label: 'Share reviewed', kind: 'number', step: 'any', help: 'At least 0.05: that share of scored episodes goes to reviewers.' },
      {
        path: 'review.doubleReviewShare',
        label: 'Double-reviewed share',
        kind: 'number',
        step: 'any',
        help: 'Of the sampled items, reviewed by two people (for agreement).',
      },
      {
        path: 'review.blind',
        label: 'Blind review',
        kind: 'select',
        options: ['true', 'false'],
        parse: 'boolean',
        help: 'Hide run, policy version and reward until the verdict.',
      },
      {
        path: 'review.disputed',
        label: 'Disputed rewards',
        kind: 'select',
        options: ['exclude', 'replace'],
        help: 'Exclude from training, or train on the corrected reward.',
      },
      {
        path: 'review.thresholds',
        label: 'Decision thresholds',
        kind: 'text',
        parse: 'numbers',
        help: 'Comma-separated; rewards within 0.05 are boundary cases.',
      },
    ],
  },
  {
    title: 'Held-out evaluation',
    fields: [
      {
        path: 'heldout.tasks',
        label: 'Held-out tasks per version',
        kind: 'number',
        step: '1',
        optional: true,
        help: 'Each policy version (v0 and after every iteration) is evaluated greedily on this many held-out tasks; 0 = all of the suite’s. Empty: the deployment’s (CRUCIBLE_RL_HELDOUT_LIMIT).',
      },
      {
        path: 'heldout.passAtK',
        label: 'pass@k samples (k)',
        kind: 'number',
        step: '1',
        optional: true,
        help: 'k samples per held-out task at the run’s temperature; 0 = no pass@k. Empty: the deployment’s (CRUCIBLE_RL_PASS_K).',
      },
      {
        path: 'heldout.passAtKEvery',
        label: 'pass@k every (versions)',
        kind: 'number',
        step: '1',
        optional: true,
        help: 'pass@k at v0, every this many versions and the last; 0 = only v0 and the last. Empty: the deployment’s (CRUCIBLE_RL_PASS_K_EVERY).',
      },
    ],
  },
  {
    title: 'Scheduling',
    fields: [
      { path: 'queue', label: 'Queue', kind: 'select', options: SCHEDULING_TIERS },
      { path: 'priority', label: 'Priority', kind: 'number', step: '1', help: '0–1000, higher runs first within a queue.' },
    ],
  },
];

export const allFields = fieldGroups.flatMap((g) => g.fields);

/** Config settings only repository tasks read (the form hides them for other suites, compare's diff leaves them out). */
const REPO_ONLY_PATHS = new Set([
  ...fieldGroups.flatMap((g) => g.fields.filter((f) => g.repoOnly || f.repoOnly).map((f) => f.path)),
  // set by API/CLI rather than the form
  'toolCallFormat',
  'chatTemplateArgs',
]);
export const isRepoOnlyPath = (path: string) => REPO_ONLY_PATHS.has(path) || [...REPO_ONLY_PATHS].some((p) => path.startsWith(`${p}.`));

export type FormValues = Record<string, string>;

function getPath(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/**
 * Form strings from a config (a run being copied), or the defaults for a new run (deployment
 * defaults left empty). The policy's values come from policy-fields.ts.
 */
export function valuesFromConfig(config?: Partial<RunConfig>): FormValues {
  const out: FormValues = policyValues(config?.policy);
  for (const f of allFields) {
    if (!config && f.deploymentDefault) {
      out[f.path] = '';
      continue;
    }
    const v = getPath(config ?? defaultRunConfig, f.path) ?? getPath(defaultRunConfig, f.path);
    out[f.path] = v == null ? '' : Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

/**
 * Turn form strings into a config object. Numbers that do not parse are reported here
 * (zod would only say "expected number, received NaN").
 */
export function configFromValues(values: FormValues): { config: Record<string, unknown>; errors: Record<string, string> } {
  const config: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of allFields) {
    const raw = (values[f.path] ?? '').trim();
    if (raw === '' && f.deploymentDefault) continue; // decided at launch (server/runs/launch-isolation.ts)
    if (raw === '' && f.optional) continue; // Crucible's default
    let v: unknown = raw;
    if (f.kind === 'number') {
      if (raw === '') errors[f.path] = 'Enter a number';
      v = Number(raw);
      if (raw !== '' && !Number.isFinite(v as number)) errors[f.path] = 'Enter a number';
    } else if (f.parse === 'boolean') {
      v = raw === 'true';
    } else if (f.parse === 'strings') {
      v =
        raw === ''
          ? []
          : raw
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean);
    } else if (f.parse === 'numbers') {
      const parts = raw === '' ? [] : raw.split(',').map((x) => x.trim());
      v = parts.map(Number);
      if (parts.some((x) => x === '' || !Number.isFinite(Number(x)))) errors[f.path] = 'Enter numbers separated by commas';
    }
    const parents = f.path.split('.');
    const leaf = must(parents.pop(), `a key in field path "${f.path}"`);
    let o = config;
    for (const k of parents) o = (o[k] ??= {}) as Record<string, unknown>;
    o[leaf] = v;
  }
  const policy = policyFromValues(values);
  config.policy = policy.policy;
  Object.assign(errors, policy.errors);
  return { config, errors };
}
