import { envInt } from '@/workers/runtime/settings';

function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** Loop knobs that RunConfig does not carry (env overrides, read at use). */
export const rlSettings = () => ({
  /** SFT warm-start steps on the suite's train demonstrations before iteration 0 (0 = off). */
  sftSteps: envCount('CRUCIBLE_RL_SFT_STEPS', 60),
  /** New tokens per turn. */
  maxNewTokens: envInt('CRUCIBLE_RL_MAX_NEW_TOKENS', 40),
  /** Bytes of earlier turns' code + feedback kept in the prompt. */
  feedbackBudget: envInt('CRUCIBLE_RL_FEEDBACK_BYTES', 120),
  /** Staleness bound k: episodes sampled by a policy older than k versions are dropped from the loss. */
  maxStaleness: envInt('CRUCIBLE_RL_MAX_STALENESS', 1),
  /** Held-out tasks evaluated per iteration (greedy pass@1). 0 = all. */
  heldoutLimit: envCount('CRUCIBLE_RL_HELDOUT_LIMIT', 0),
  testTimeoutMs: envInt('CRUCIBLE_RL_TEST_TIMEOUT_MS', 2000),
  /** Infra-failed episodes are re-run this many times before being masked. */
  infraRetries: envCount('CRUCIBLE_RL_INFRA_RETRIES', 1),
});

export const QUEUES = { advance: 'rl.advance', episode: 'rl.episode', learn: 'rl.learn' } as const;
