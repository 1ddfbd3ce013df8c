import { envInt } from '@/workers/runtime/settings';

function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

function envFloat(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

/** Loop knobs that RunConfig does not carry (env overrides, read at use). */
export const rlSettings = () => ({
  /** SFT warm-start steps on the suite's train demonstrations before iteration 0 (0 = off). */
  sftSteps: envCount('CRUCIBLE_RL_SFT_STEPS', 250),
  /** Peak learning rate of the warm start (the RL phase uses the run's learningRate). */
  sftLearningRate: envFloat('CRUCIBLE_RL_SFT_LR', 3e-3),
  /** New tokens per turn. */
  maxNewTokens: envInt('CRUCIBLE_RL_MAX_NEW_TOKENS', 40),
  /** Bytes of earlier turns' code + feedback kept in the prompt. */
  feedbackBudget: envInt('CRUCIBLE_RL_FEEDBACK_BYTES', 120),
  /** Held-out tasks evaluated per iteration (greedy pass@1). 0 = all. */
  heldoutLimit: envCount('CRUCIBLE_RL_HELDOUT_LIMIT', 0),
  /** Held-out pass@k: k sampled attempts per task, every `passAtKEvery` iterations (and at the start and end). 0 = off. */
  passAtK: envCount('CRUCIBLE_RL_PASS_K', 4),
  passAtKEvery: envCount('CRUCIBLE_RL_PASS_K_EVERY', 5),
  testTimeoutMs: envInt('CRUCIBLE_RL_TEST_TIMEOUT_MS', 2000),
  /** Infra-failed episodes are re-run this many times before being masked. */
  infraRetries: envCount('CRUCIBLE_RL_INFRA_RETRIES', 1),
});

export const QUEUES = { advance: 'rl.advance', episode: 'rl.episode', learn: 'rl.learn' } as const;

/**
 * Lease of an RL job (renewed by heartbeat every third of it). CRUCIBLE_RL_LEASE_MS
 * overrides every RL queue's lease: tests that kill workers use a short one so the
 * killed worker's jobs are re-claimed within seconds.
 */
export const rlLeaseMs = (fallback: number) => envInt('CRUCIBLE_RL_LEASE_MS', fallback);
