import type { FormValues } from './run-form-fields';

/** What the cluster offers a run: all sandbox hosts together (runs.launchOptions `total`). */
export type ClusterTotal = { cpus: number; memoryMb: number; hosts: number };

export type LaunchCost = {
  /** episodes per iteration, and the most dynamic sampling may draw */
  perIteration: number;
  perIterationMax: number;
  /** training episodes of the whole run (and with dynamic sampling at most) */
  total: number;
  totalMax: number;
  /** 2 with a control arm: everything above is sampled twice */
  arms: 1 | 2;
  /** policy versions evaluated held-out: v0 and one per iteration */
  heldoutVersions: number;
  /** held-out tasks per version, or null for the deployment's default */
  heldoutTasks: number | null;
  /** versions that also get pass@k, and k; null for the deployment's default */
  passAtK: { k: number; versions: number } | null;
  /** vCPUs and memory the run's concurrent episodes ask for, all arms */
  concurrentCpus: number;
  concurrentMemoryMb: number;
  warnings: string[];
};

const num = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/**
 * The run's size before launch, from the form's values: what an operator multiplies in their
 * head (tasks × group × iterations, doubled by a control arm, plus held-out evaluation of every
 * version) and whether its concurrency fits the cluster at its per-task quota.
 */
export function launchCost(values: FormValues, o: { controlArm: boolean; total?: ClusterTotal | null }): LaunchCost | null {
  const tasks = num(values.tasksPerIteration);
  const group = num(values.groupSize);
  const iterations = num(values.iterations);
  if (tasks === null || group === null || iterations === null) return null;
  const factor = values['dynamicSampling.enabled'] === 'true' ? (num(values['dynamicSampling.maxGroupsFactor']) ?? 1) : 1;
  const arms = o.controlArm ? 2 : 1;
  const perIteration = tasks * group;
  const heldoutTasks = num(values['heldout.tasks']);
  const k = num(values['heldout.passAtK']);
  const every = num(values['heldout.passAtKEvery']);
  const heldoutVersions = iterations + 1;
  // v0, every `every`-th version and the last (learn-job's rule)
  const kVersions =
    k === null
      ? null
      : k === 0
        ? 0
        : new Set([0, iterations, ...(every && every > 0 ? Array.from({ length: Math.floor(iterations / every) }, (_, i) => (i + 1) * every) : [])]).size;
  const concurrency = num(values.concurrency) ?? 1;
  const cpus = num(values['quota.cpus']) ?? 0;
  const memoryMb = num(values['quota.memoryMb']) ?? 0;
  const warnings: string[] = [];
  if (o.total && cpus > 0 && concurrency * cpus * arms > o.total.cpus)
    warnings.push(
      `${concurrency} concurrent episode(s)${arms === 2 ? ' per arm' : ''} × ${cpus} vCPUs = ${concurrency * cpus * arms} vCPUs, but the ${o.total.hosts} sandbox host(s) have ${o.total.cpus}: at most ${Math.max(1, Math.floor(o.total.cpus / cpus))} episode(s) run at once, the rest wait in the queue.`,
    );
  if (o.total && memoryMb > 0 && concurrency * memoryMb * arms > o.total.memoryMb)
    warnings.push(
      `${concurrency} concurrent episode(s)${arms === 2 ? ' per arm' : ''} × ${memoryMb} MB = ${concurrency * memoryMb * arms} MB, but the sandbox hosts have ${o.total.memoryMb} MB: the rest wait in the queue.`,
    );
  return {
    perIteration,
    perIterationMax: perIteration * factor,
    total: perIteration * iterations,
    totalMax: perIteration * factor * iterations,
    arms,
    heldoutVersions,
    heldoutTasks,
    passAtK: k === null ? null : { k, versions: kVersions ?? 0 },
    concurrentCpus: concurrency * cpus * arms,
    concurrentMemoryMb: concurrency * memoryMb * arms,
    warnings,
  };
}
