import { INFRA_STATUSES } from './iteration-metrics';

/** An iteration's finished episode as the gate sees it. */
export type GateEpisode = { status: string; error: string | null };

/**
 * Whether an iteration's infrastructure failures (sandbox errors, environment mismatches,
 * preemptions, each already retried) exceed `maxRate` of its finished episodes. Such a run is
 * measuring its sandboxes, not its policy: training on the few scored episodes and reporting
 * the run "completed" would hide a broken runtime (issue 18). Returns the reason to fail the
 * run with, naming the failures by status and the commonest message, or undefined.
 */
export function infraFailure(episodes: GateEpisode[], maxRate: number, iteration: number): { message: string; data: Record<string, unknown> } | undefined {
  const finished = episodes.filter((e) => e.status !== 'pending' && e.status !== 'running');
  const infra = finished.filter((e) => (INFRA_STATUSES as readonly string[]).includes(e.status));
  if (!finished.length || infra.length / finished.length <= maxRate) return undefined;
  const byStatus = new Map<string, number>();
  const byError = new Map<string, number>();
  for (const e of infra) {
    byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + 1);
    // the last attempt's message (retries prefix earlier ones with "attempt N:")
    const msg = (e.error ?? 'no detail').replace(/^attempt \d+: /, '');
    byError.set(msg, (byError.get(msg) ?? 0) + 1);
  }
  const [commonest = 'no detail', times = 0] = [...byError].sort((a, b) => b[1] - a[1])[0] ?? [];
  const statuses = [...byStatus].map(([s, n]) => `${s} ×${n}`).join(', ');
  const pct = Math.round((100 * infra.length) / finished.length);
  return {
    message:
      `iteration ${iteration}: ${infra.length} of ${finished.length} episodes (${pct}%) were infrastructure failures (${statuses}), more than the ${Math.round(maxRate * 100)}% CRUCIBLE_RL_INFRA_FAIL_RATE allows. ` +
      `Most common (${times}×): ${commonest}. Check the sandbox runtime on the workers (\`crucible sandbox runtimes\`), then clone the run.`,
    data: { iteration, infra: infra.length, finished: finished.length, statuses: Object.fromEntries(byStatus), error: commonest },
  };
}
