/**
 * A positive integer setting from the environment, or `fallback`. A malformed value is an
 * error (not silently the default) so a typo in a deployment is noticed at start.
 */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** How often workers heartbeat their registration. */
export const workerHeartbeatMs = () => envInt('CRUCIBLE_WORKER_HEARTBEAT_MS', 5_000);
/** After how long without a heartbeat maintenance declares a worker lost. */
export const workerStaleMs = () => envInt('CRUCIBLE_WORKER_STALE_MS', 30_000);
