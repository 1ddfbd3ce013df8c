import os from 'node:os';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import type { NodeCapacity } from '@/core/resources';
import { workers } from '@/db/schema';

// A scheduler node: the processes of one machine (or one simulated machine in tests) that
// run scheduled jobs. Each such process records the node's name and capacity on its
// `workers` row; the heartbeat the worker runtime already sends is the node's heartbeat.

const OVERRIDES = {
  cpus: 'CRUCIBLE_NODE_CPUS',
  memoryMb: 'CRUCIBLE_NODE_MEMORY_MB',
  gpuCount: 'CRUCIBLE_NODE_GPUS',
  gpuMemoryMb: 'CRUCIBLE_NODE_GPU_MEMORY_MB',
  diskMb: 'CRUCIBLE_NODE_DISK_MB',
} as const satisfies Record<CapacityFigure, string>;

/** The measured figures of a node's capacity (its runtimes list is not overridable). */
type CapacityFigure = Exclude<keyof NodeCapacity, 'runtimes'>;

/** The node's settings (core/settings.ts), as the raw strings given. */
type NodeSettings = { readonly CRUCIBLE_NODE?: string } & { readonly [K in (typeof OVERRIDES)[CapacityFigure]]?: string };

/** The node's name: CRUCIBLE_NODE, else the hostname. */
export function nodeName(env: NodeSettings): string {
  return env.CRUCIBLE_NODE?.trim() || os.hostname();
}

/**
 * What this node offers: measured (CPUs, memory, nvidia-smi GPUs, free scratch disk), each
 * figure replaceable through its setting, so a test can run "small nodes" and an
 * operator can keep part of a machine out of the scheduler's hands. `measure` is the worker
 * process's detectCapacity (host-capacity.ts), passed in so tests can give a fixed one.
 */
export function nodeCapacity(env: NodeSettings, measure: () => NodeCapacity): NodeCapacity {
  const c = { ...measure() };
  for (const [key, name] of Object.entries(OVERRIDES) as [CapacityFigure, (typeof OVERRIDES)[CapacityFigure]][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(raw)}`);
    c[key] = n;
  }
  return c;
}

/**
 * Mark this worker's registration as (a process of) node `name` with `capacity`, keeping the
 * runtimes it reported at registration unless `capacity` names its own.
 */
export async function joinNode(db: Db, workerId: string, name: string, capacity: NodeCapacity): Promise<void> {
  const kept = capacity.runtimes ? sql`'{}'::jsonb` : sql`jsonb_strip_nulls(jsonb_build_object('runtimes', ${workers.capacity}->'runtimes'))`;
  await db
    .update(workers)
    .set({ node: name, capacity: sql`${JSON.stringify(capacity)}::jsonb || ${kept}` })
    .where(eq(workers.id, workerId));
}
