import { z } from 'zod';
import { runConfigFields, runtimeName, type RunConfigInput } from '@/core/run-config';
import { defaultIsolation, tierDefaultNote } from '@/core/sandbox-runtimes';
import { RISK_TIERS } from '@/core/tasks';
import { canonicalRuntimeName } from '@/lib/sandbox/runtimes/available-runtimes';
import { DomainError } from '@/server/errors';
import type { Deployment } from './deployment';
import { newRunSchema } from './service';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * A launch's run config as the operator wrote it: the isolation tiers may be left unset, so
 * the launch can tell "no choice" (the deployment's defaults) from a named runtime (checked,
 * never changed).
 */
export const launchRunSchema = newRunSchema.extend({
  config: runConfigFields.extend({
    isolation: z.object({ routine: runtimeName.optional(), high: runtimeName.optional() }).strict().optional(),
  }),
});
export type LaunchRunInput = z.input<typeof launchRunSchema>;

/**
 * Resolve a launch's isolation against the deployment (issue 18's risk-tier policy): unset
 * tiers get `routine → gvisor, high → microvm` where a host has them (else the next
 * strongest, with a note saying what to install); a tier naming a runtime no host has is
 * refused now, with the install command, rather than failing when the run starts. Returns
 * the config with both tiers set, and the notes for the run's `created` event.
 */
export function resolveLaunchIsolation(
  config: z.output<typeof launchRunSchema>['config'],
  deployment: Pick<Deployment, 'available' | 'source' | 'probe'>,
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
    const canonical = canonicalRuntimeName(named, runtimeOptions(settings()));
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
  const unset = RISK_TIERS.filter((t) => given[t] === undefined);
  if (unset.length) notes.push(`isolation defaults for this deployment: ${unset.map((t) => `${t} → ${isolation[t]}`).join(', ')}`);
  for (const t of unset) {
    const note = tierDefaultNote(t, isolation[t]!);
    if (note) notes.push(note);
  }
  return { config: { ...config, isolation: isolation as { routine: 'bwrap'; high: 'bwrap' } }, notes };
}
