import type { RunConfig } from '@/core/run-config';
import { DomainError } from '@/server/errors';
import type { Deployment } from './deployment';

/**
 * Refuse, at launch, a per-task quota no sandbox host can ever satisfy (e.g. 64 vCPUs on
 * 2-vCPU nodes): every episode would wait in the scheduler forever. The largest host
 * bounds each figure separately; a quota that fits is admitted as today.
 */
export function checkLaunchQuota(quota: Pick<RunConfig['quota'], 'cpus' | 'memoryMb'>, deployment: Pick<Deployment, 'largest' | 'source'>): void {
  const { largest } = deployment;
  const where = (host: string) => (deployment.source === 'workers' ? `the largest live sandbox host (${host})` : 'this host');
  const problems: string[] = [];
  if (quota.cpus > largest.cpus) {
    problems.push(`quota.cpus is ${quota.cpus} but ${where(largest.cpusHost)} has ${largest.cpus} vCPUs; set it to at most ${largest.cpus}`);
  }
  if (quota.memoryMb > largest.memoryMb) {
    problems.push(`quota.memoryMb is ${quota.memoryMb} but ${where(largest.memoryHost)} has ${largest.memoryMb} MB; set it to at most ${largest.memoryMb}`);
  }
  if (problems.length) {
    throw new DomainError('BAD_REQUEST', `no sandbox host is large enough for one task of this run, so no episode could ever start: ${problems.join('; ')}`);
  }
}
