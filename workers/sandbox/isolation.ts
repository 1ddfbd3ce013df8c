import { runtimeName } from '@/server/runs/run-config';
import { runtimeByName } from './runtimes';
import { SandboxError } from './types';

export type RiskTier = 'routine' | 'high';
export type IsolationPolicy = Record<RiskTier, string>;

/**
 * Check a run's isolation policy before the run starts: every tier's runtime must be a
 * known name and installed here. Nothing is downgraded; the error names what to install.
 * Returns the runtime name per tier, which is what episodes record as served by.
 */
export function checkIsolationPolicy(policy: IsolationPolicy): IsolationPolicy {
  const problems: string[] = [];
  for (const tier of ['routine', 'high'] as const) {
    const name = policy[tier];
    if (!runtimeName.safeParse(name).success) {
      problems.push(`${tier}: "${name}" is not a runtime name`);
      continue;
    }
    try {
      runtimeByName(name).check();
    } catch (e) {
      problems.push(`${tier} risk → ${name}: ${(e as Error).message}`);
    }
  }
  if (problems.length) throw new SandboxError(`the run's isolation policy cannot be served on this host:\n${problems.join('\n')}`, 'missing_runtime');
  return { routine: runtimeByName(policy.routine).name, high: runtimeByName(policy.high).name };
}

/** The runtime an episode of the given risk tier runs under. */
export function runtimeForTier(policy: IsolationPolicy, tier: RiskTier): string {
  return runtimeByName(policy[tier]).name;
}
