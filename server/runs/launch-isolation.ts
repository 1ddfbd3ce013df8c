import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { runConfigSchema, runtimeName, type RunConfigInput } from '@/core/run-config';
import { defaultIsolation } from '@/core/sandbox-runtimes';
import { RISK_TIERS } from '@/core/tasks';
import type { Db } from '@/db/client';
import { workers } from '@/db/schema';
import { canonicalRuntimeName, probeRuntimes, type RuntimeProbe } from '@/workers/sandbox/runtimes/available-runtimes';
import { DomainError } from '@/server/errors';
import { newRunSchema } from './service';

/**
 * A launch's run config as the operator wrote it: the isolation tiers may be left unset, so
 * the launch can tell "no choice" (the deployment's defaults) from a named runtime (checked,
 * never changed).
 */
export const launchRunSchema = newRunSchema.extend({
  config: runConfigSchema.extend({
    isolation: z.object({ routine: runtimeName.optional(), high: runtimeName.optional() }).strict().optional(),
  }),
});
export type LaunchRunInput = z.input<typeof launchRunSchema>;

export type DeploymentRuntimes = {
  /** canonical names of the runtimes that work on at least one sandbox host */
  available: string[];
  /** live sandbox hosts that reported runtimes, or this host probed when none has */
  source: 'workers' | 'this host';
  /** this host's probe (with the reason each runtime is missing), when that is the source */
  probe?: RuntimeProbe[];
};

let localProbe: { at: number; probe: RuntimeProbe[] } | null = null;

/**
 * The runtimes this deployment can serve: the union of what live sandbox-running workers
 * reported at registration; when none has registered yet (a fresh single-host install),
 * this host's own probe, cached for a minute.
 */
export async function deploymentRuntimes(db: Db): Promise<DeploymentRuntimes> {
  const rows = await db
    .select({ runtimes: sql<string[] | null>`${workers.capacity}->'runtimes'` })
    .from(workers)
    .where(and(eq(workers.status, 'running'), sql`${workers.capacity} ? 'runtimes'`));
  if (rows.length) return { available: [...new Set(rows.flatMap((r): string[] => r.runtimes ?? []))].sort(), source: 'workers' };
  if (!localProbe || Date.now() - localProbe.at > 60_000) localProbe = { at: Date.now(), probe: probeRuntimes() };
  return { available: localProbe.probe.filter((p) => p.available).map((p) => p.name), source: 'this host', probe: localProbe.probe };
}

/**
 * Resolve a launch's isolation against the deployment (issue 18's risk-tier policy): unset
 * tiers get `routine → gvisor, high → microvm` where a host has them (else the next
 * strongest, with a note saying what to install); a tier naming a runtime no host has is
 * refused now, with the install command, rather than failing when the run starts. Returns
 * the config with both tiers set, and the notes for the run's `created` event.
 */
export function resolveLaunchIsolation(
  config: z.output<typeof launchRunSchema>['config'],
  deployment: DeploymentRuntimes,
): { config: RunConfigInput; notes: string[] } {
  const given = config.isolation ?? {};
  const defaults = defaultIsolation(deployment.available);
  const where = deployment.source === 'workers' ? 'on any live sandbox host' : 'on this host';
  const problems: string[] = [];
  const isolation: Record<string, string> = {};
  const notes: string[] = [];
  for (const tier of RISK_TIERS) {
    const named = given[tier];
    if (named === undefined) {
      if (!defaults.isolation) {
        throw new DomainError(
          'BAD_REQUEST',
          `no sandbox runtime is installed ${where}, so no episode could run; install them with \`bash scripts/system-deps.sh\` on every sandbox host and restart the workers`,
        );
      }
      isolation[tier] = defaults.isolation[tier];
      continue;
    }
    const canonical = canonicalRuntimeName(named);
    if (!deployment.available.includes(canonical)) {
      const why = deployment.probe?.find((p) => p.name === canonical)?.reason;
      problems.push(`isolation.${tier}: ${named} is not installed ${where}${why ? ` (${why})` : ''}`);
    }
    isolation[tier] = named;
  }
  if (problems.length) {
    throw new DomainError(
      'BAD_REQUEST',
      `${problems.join('; ')}. Install it on the sandbox hosts (\`bash scripts/system-deps.sh\`, then restart the workers), ` +
        `or choose one of the runtimes available: ${deployment.available.join(', ') || 'none'}. Runtimes are never downgraded.`,
    );
  }
  for (const note of defaults.notes) if (RISK_TIERS.some((t) => given[t] === undefined && note.startsWith(`${t} `))) notes.push(note);
  const unset = RISK_TIERS.filter((t) => given[t] === undefined);
  if (unset.length) notes.unshift(`isolation defaults for this deployment: ${unset.map((t) => `${t} → ${isolation[t]}`).join(', ')}`);
  return { config: { ...config, isolation: isolation as { routine: 'bwrap'; high: 'bwrap' } }, notes };
}
