// Types of the pure scheduling core. Times are epoch milliseconds (virtual in the simulator),
// so a DB-backed loop can pass `Date.now()` and timestamps straight from its rows.

import type { Resources } from '@/core/resources';

/** What every workload carries, whether waiting or running. */
export interface Workload {
  id: string;
  /** Fair sharing happens between runs of one tier. */
  runId: string;
  /** Tier name, e.g. `critical`, `standard`, `best-effort`. */
  tier: string;
  /** Quota queue; defaults to the tier's name. */
  queue?: string;
  /** Priority class value inside the tier; higher goes first (default 0). */
  priority?: number;
  request: Resources;
  /** First submission; FIFO order inside a run and priority. Kept across requeues. */
  createdAt: number;
  /** Restrict placement to one node pool (default: chosen from the request). */
  pool?: string;
}

export interface PendingWorkload extends Workload {
  /** When it last entered the queue (submission or requeue); waits age from here (default createdAt). */
  queuedAt?: number;
  /** Not admitted before this time: the backoff after a preemption or node loss. */
  notBefore?: number;
  /** How many times it was preempted so far (drives the backoff). */
  preemptions?: number;
}

export interface RunningWorkload extends Workload {
  nodeId: string;
  startedAt: number;
  /** Being stopped after a preemption: still occupies its node, cannot be chosen again. */
  evicting?: boolean;
  preemptions?: number;
}

export interface NodeInfo {
  id: string;
  capacity: Resources;
  /** Last heartbeat; a node silent for longer than `leaseMs` is lost. */
  heartbeatAt: number;
  /** Node pool (default `gpu` when it has GPUs, else `cpu`); the reserve is kept per pool. */
  pool?: string;
  /** Takes no new work but keeps what it runs (draining). */
  cordoned?: boolean;
}

export interface TierConfig {
  name: string;
  /** Higher rank = more important; any workload of a higher rank goes before any of a lower. */
  rank: number;
  /** May use the elastic reserve (and preempt any lower tier for capacity). */
  useReserve: boolean;
  /** May evict others at all. */
  canPreempt: boolean;
  /**
   * Longest a workload of this tier should wait (checked by the simulator). Past a quarter a
   * workload is "aged": it goes first in its tier and, if no node fits it, one node is held
   * for it (nothing of its tier or below is placed there) until it drains enough.
   */
  starvationBoundMs: number;
}

export interface QueueConfig {
  name: string;
  tier: string;
  /** Queues of one cohort lend each other their idle nominal quota. */
  cohort?: string;
  /** Guaranteed quota per resource; a missing resource is unlimited. */
  nominal: Partial<Resources>;
  /** How far past nominal this queue may borrow from its cohort; missing = unlimited. */
  borrowingLimit?: Partial<Resources>;
}

export interface SchedulerConfig {
  tiers: TierConfig[];
  queues: QueueConfig[];
  /** Share of each pool's live capacity that tiers without `useReserve` never use. */
  reserveFraction: number;
  /** A node whose heartbeat is older than this is lost; its workloads are requeued. */
  leaseMs: number;
  /** A node silent for longer than this (but inside its lease) takes no new work. */
  suspectAfterMs: number;
  /** A running workload younger than this is never preempted (anti-thrashing). */
  minRunTimeMs: number;
  /** Backoff before a preempted workload may be admitted again: base·2^(n-1), capped. */
  backoff: { baseMs: number; maxMs: number };
  /** Let CPU-only work use GPU nodes even when CPU-only nodes exist. */
  cpuWorkOnGpuNodes: boolean;
}

export interface SchedulerState {
  now: number;
  nodes: NodeInfo[];
  pending: PendingWorkload[];
  running: RunningWorkload[];
  config: SchedulerConfig;
}

export type WaitReason = 'backoff' | 'quota' | 'cohort' | 'reserve' | 'capacity' | 'unknown-queue' | 'no-pool';

export interface Admission {
  workloadId: string;
  nodeId: string;
  /** Victims that must be stopped before this workload starts (empty when it fits now). */
  preempts: string[];
  /** Its queue is above nominal after this admission: reclaimable by lenders. */
  borrowing: boolean;
}

export type PreemptionReason = 'priority' | 'reclaim';

export interface Preemption {
  workloadId: string;
  nodeId: string;
  byWorkloadId: string;
  reason: PreemptionReason;
  /** Human-readable, to record on the workload and show. */
  message: string;
  /** Requeue it with `notBefore = retryAt` and `preemptions` incremented. */
  retryAt: number;
  preemptions: number;
}

export interface Requeue {
  workloadId: string;
  nodeId: string;
  reason: 'node-lost';
  message: string;
}

export interface Waiting {
  workloadId: string;
  reason: WaitReason;
}

export interface SchedulingResult {
  admissions: Admission[];
  preemptions: Preemption[];
  requeues: Requeue[];
  waiting: Waiting[];
  /** Decisions = pending workloads examined (admitted or left waiting), backoff excluded. */
  stats: { decisions: number; admitted: number; preempted: number; requeued: number };
}
