export type BackoffPolicy = { baseMs: number; maxMs: number };

export const defaultBackoff: BackoffPolicy = { baseMs: 1_000, maxMs: 10 * 60_000 };

/**
 * Delay before retry number `attempt` (1 = after the first failure): exponential, capped,
 * with "equal jitter" (half fixed, half random) so a burst of failures does not retry in
 * lockstep yet the delay still grows monotonically on average.
 */
export function backoffMs(attempt: number, policy: BackoffPolicy = defaultBackoff, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
