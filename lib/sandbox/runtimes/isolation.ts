import { SANDBOX_RUNTIME_NAMES, sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { RISK_TIERS, type RiskTier } from '@/core/tasks';
import type { RuntimeOptions } from './options';
import { runtimeByName } from './runtime-by-name';
import { SandboxError } from '../types';

export type IsolationPolicy = Record<RiskTier, string>;

/**
 * Check a run's isolation policy before the run starts: every tier's runtime must be a
 * known name and installed here. Nothing is downgraded; the error names the missing
 * runtime and what to install (or which runtime to configure instead). Accepts the
 * policy itself or a whole run config (`{ isolation }`). Returns the runtime name per
 * tier, which is what episodes record as served by. `options`: this host's runtime
 * binaries (default: from settings; tests name a runsc that does not exist).
 */
export function checkIsolationPolicy(input: IsolationPolicy | { isolation: IsolationPolicy }, options: RuntimeOptions): IsolationPolicy {
  const policy = 'isolation' in input ? input.isolation : input;
  const problems: string[] = [];
  const checked = new Map<string, string | undefined>(); // one check per runtime, even when both tiers name it
  for (const tier of RISK_TIERS) {
    const name = policy[tier];
    if (!sandboxRuntimeName.safeParse(name).success) {
      problems.push(`${tier} risk: "${name}" is not a runtime name (use one of ${SANDBOX_RUNTIME_NAMES.join(', ')})`);
      continue;
    }
    if (!checked.has(name)) {
      try {
        runtimeByName(name, options).check();
        checked.set(name, undefined);
      } catch (e) {
        checked.set(name, (e as Error).message);
      }
    }
    const why = checked.get(name);
    if (why) problems.push(`${tier} risk → ${name}: ${why}`);
  }
  if (problems.length) {
    throw new SandboxError(
      `the run cannot start: its isolation policy (routine → ${policy.routine}, high → ${policy.high}) names a runtime this host cannot serve, ` +
        `and runtimes are never downgraded:\n${problems.join('\n')}\n` +
        "Install the missing runtime on every sandbox host, or change the run's isolation settings (e.g. --set isolation.high=bwrap).",
      'missing_runtime',
    );
  }
  return { routine: runtimeByName(policy.routine, options).name, high: runtimeByName(policy.high, options).name };
}

/** The runtime an episode of the given risk tier runs under. */
export function runtimeForTier(policy: IsolationPolicy, tier: RiskTier, options: RuntimeOptions): string {
  return runtimeByName(policy[tier], options).name;
}
