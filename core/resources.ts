import { z } from 'zod';

/**
 * The one resource vector: what a workload requests, what a node offers, what a quota
 * allows. It is the scheduler core's (lib/scheduler), and the job queue's workload
 * requests (server/queue/scheduled.ts, the `jobs.request` column), node registrations and
 * the resource metrics are expressed in or converted from it here. Imports nothing from the
 * project.
 */
export const RESOURCE_KEYS = ['cpu', 'memoryMb', 'gpu', 'gpuMemoryMb', 'diskMb'] as const;
export type ResourceKey = (typeof RESOURCE_KEYS)[number];
/** A resource vector. `gpuMemoryMb` is the total GPU memory asked for / offered, like `memoryMb`. */
export type Resources = Record<ResourceKey, number>;

const amount = z.number().nonnegative().max(1e9);

/** A workload's request as callers write it: unset resources are 0, and something must be asked for. */
export const resourceRequestInput = z
  .object({ cpu: amount.default(0), memoryMb: amount.default(0), gpu: amount.default(0), gpuMemoryMb: amount.default(0), diskMb: amount.default(0) })
  .strict()
  .refine((r) => r.cpu + r.memoryMb + r.gpu + r.gpuMemoryMb + r.diskMb > 0, 'a workload must request some resource');

/**
 * A node's capacity as each worker records it in `workers.capacity` (JSON). Its older key
 * names (`cpus`, `gpuCount`) are kept because live worker rows, SQL over that column and the
 * operator-facing CRUCIBLE_NODE_* overrides use them; `capacityResources` is the only
 * conversion to the vector above.
 */
export type NodeCapacity = {
  cpus: number;
  memoryMb: number;
  gpuCount: number;
  gpuMemoryMb: number;
  diskMb: number;
  /** the sandbox runtimes that work on this host (canonical names), as a sandbox-running worker probed them at registration */
  runtimes?: string[];
};

/** The resource vector a node's recorded capacity offers. */
export function capacityResources(c: NodeCapacity): Resources {
  return { cpu: c.cpus, memoryMb: c.memoryMb, gpu: c.gpuCount, gpuMemoryMb: c.gpuMemoryMb, diskMb: c.diskMb };
}

/**
 * The resources that resource metrics break down by (capacity, reserve, quota use), and the
 * `resource` label value each is written with (/resources, /api/metrics read these labels).
 */
export const RESOURCE_METRIC_LABELS = { cpu: 'cpu', memoryMb: 'memory_mb', gpu: 'gpu' } as const satisfies Partial<Record<ResourceKey, string>>;

/** Sandbox `state` values counted as busy, idle and warm (`running`, `ready`: rows of older versions), for /resources, /workers and the metrics sampler. */
export const SANDBOX_STATE_CLASSES = { busy: ['busy', 'running'], idle: ['idle', 'ready'], warm: ['warm'] } as const;
export type SandboxStateClass = keyof typeof SANDBOX_STATE_CLASSES;

/** Which class a sandbox state counts in (null: not counted, e.g. being destroyed). */
export function sandboxClass(state: string): SandboxStateClass | null {
  for (const [k, states] of Object.entries(SANDBOX_STATE_CLASSES)) if ((states as readonly string[]).includes(state)) return k as SandboxStateClass;
  return null;
}
