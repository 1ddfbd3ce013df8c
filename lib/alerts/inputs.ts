import type { AlertThresholds, RunAlertSettings } from '@/core/alerts';
import type { RlMetric } from '@/core/metrics';

/**
 * What the rules look at, as plain data: one snapshot of runs, workers, nodes, environments,
 * queues and sandboxes, gathered by the evaluator (workers/alerts/gather.ts). Rules are pure
 * functions of it, so they are tested on plain data.
 */
export type AlertInputs = {
  runs: RunInput[];
  workers: WorkerInput[];
  nodes: NodeInput[];
  environments: EnvironmentInput[];
  queues: QueueInput[];
  sandboxes: SandboxInput;
  /** cluster-wide thresholds (defaults merged with CRUCIBLE_ALERT_THRESHOLDS) */
  thresholds: AlertThresholds;
};

export type RunInput = {
  id: string;
  name: string;
  /** the run's own alert settings from its config */
  alerts?: RunAlertSettings;
  /** the newest values of each iteration metric, oldest first (a window of a few iterations) */
  series: Partial<Record<RlMetric, number[]>>;
  /** episodes whose grader found tampering (reward component `tampered`) */
  tampered: { episodeId: string; iteration: number }[];
  /** reviewer agreement over double-reviewed episodes, when any */
  agreement: { kappa: number | null; pairs: number } | null;
};

/** A worker registration that is not stopped: running, or `lost` (its heartbeat stopped). */
export type WorkerInput = { id: string; kind: string; node: string; status: string };

/** A node's newest resource sample. */
export type NodeInput = { node: string; memoryUsedMb?: number; memoryTotalMb?: number; diskUsedMb?: number; diskTotalMb?: number };

export type EnvironmentInput = { name: string; quarantineReason: string | null; quarantined: boolean };

/** Queued scheduled jobs per tier: how long the oldest has waited. */
export type QueueInput = { tier: string; queued: number; oldestWaitS: number };

/** Sandbox events of the last 10 minutes. */
export type SandboxInput = {
  /** environment name (or hash) → sandboxes refused because the environment's files changed */
  envMismatches: { environment: string; count: number }[];
  /** denied egress connections and seccomp (SIGSYS) kills */
  securityDenials: number;
};
