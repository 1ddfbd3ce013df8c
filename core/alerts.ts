/**
 * Alerting contract: severities, an alert's states, label names, and the Alertmanager-style
 * filtering settings (grouping, inhibition). Shared by the rules evaluator (workers/alerts),
 * the alerts service and router (server/alerts), the console and the CLI. Imports nothing
 * from the project.
 */

import { z } from 'zod';
import { SCHEDULING_TIERS } from '@/core/queues';

export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/**
 * pending: the condition holds but not yet for the rule's `for:` duration (no notification);
 * firing: it has held that long; resolved: it stopped holding after firing (a pending alert
 * whose condition clears is simply dropped, as Prometheus does).
 */
export const ALERT_STATES = ['pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** An alert's identity: its labels (always `alertname`, `severity`, and what it is about: `run`, `node`, `worker`, …). */
export type AlertLabels = Record<string, string>;

/**
 * Labels a notification groups by (Alertmanager's `group_by`): one notification per rule and
 * run, so 40 tampered episodes of one run page once.
 */
export const ALERT_GROUP_BY = ['alertname', 'run', 'node'] as const;

/**
 * Inhibition (Alertmanager's `inhibit_rules`): while a source alert fires, target alerts that
 * share the `equal` labels are muted. A lost node explains its workers' and jobs' alerts.
 */
export type InhibitRule = { source: AlertLabels; target?: AlertLabels; equal: readonly string[] };
export const INHIBIT_RULES: readonly InhibitRule[] = [
  { source: { alertname: 'NodeLost' }, equal: ['node'] },
  { source: { alertname: 'RunRewardCollapse' }, target: { alertname: 'RunRewardJump' }, equal: ['run'] },
];

/** Notification kinds a receiver gets for a group. */
export const NOTIFICATION_KINDS = ['firing', 'resolved'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Webhook payload formats: Alertmanager's generic webhook JSON, or Slack's incoming-webhook `{text}`. */
export const WEBHOOK_FORMATS = ['json', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A silence matches an alert when every matcher's label equals its value. */
export type SilenceMatchers = Record<string, string>;

/** Limits on input. */
export const ALERT_LIMITS = { silenceMaxHours: 24 * 30, reasonMaxChars: 500, matchersMax: 8 } as const;

/** True when `labels` carries every key/value in `matchers`. */
export function labelsMatch(labels: AlertLabels, matchers: AlertLabels): boolean {
  return Object.entries(matchers).every(([k, v]) => labels[k] === v);
}

/** The built-in rules (docs/monitoring.md says what each means and what to do). */
export const ALERT_RULES = [
  'RunRewardCollapse',
  'RunRewardJump',
  'RunKlHigh',
  'RunEntropyCollapse',
  'RunGradNormHigh',
  'RunClipFractionHigh',
  'RunSkippedUpdates',
  'RunInfraFailures',
  'RunTamperedReward',
  'RunReviewDisagreement',
  'EnvironmentQuarantined',
  'EnvironmentHashMismatch',
  'SandboxSecurityDenials',
  'WorkerLost',
  'NodeLost',
  'QueueWaitHigh',
  'DiskPressure',
  'MemoryPressure',
] as const;
export type AlertRuleName = (typeof ALERT_RULES)[number];

/** The thresholds that ship on (docs/monitoring.md). */
export const DEFAULT_ALERT_THRESHOLDS: AlertThresholds = {
  rewardWindow: 5,
  rewardDrop: 0.25,
  rewardJump: 0.5,
  klMax: 0.5,
  entropyMin: 0.05,
  gradNormMax: 1000,
  clipFractionMax: 0.4,
  infraFailedRateMax: 0.2,
  kappaMin: 0.4,
  kappaMinPairs: 10,
  securityDenialsMax: 20,
  queueWaitS: 300,
  diskUsedMax: 0.9,
  memoryUsedMax: 0.9,
};

/**
 * Rule thresholds, with the defaults that ship on. Cluster-wide overrides come from
 * CRUCIBLE_ALERT_THRESHOLDS; a run's config may override the run rules' (`alerts.thresholds`).
 */
const thresholdFields = {
  /** iterations of reward_mean the collapse/jump rules compare the newest against */
  rewardWindow: z.number().int().min(1).max(100),
  rewardDrop: z.number().min(0).max(100),
  rewardJump: z.number().min(0).max(100),
  klMax: z.number().min(0),
  entropyMin: z.number().min(0),
  gradNormMax: z.number().min(0),
  clipFractionMax: z.number().min(0).max(1),
  infraFailedRateMax: z.number().min(0).max(1),
  kappaMin: z.number().min(-1).max(1),
  /** double-reviewed pairs needed before kappa means anything */
  kappaMinPairs: z.number().int().min(1),
  /** denied egress connections and seccomp kills in 10 minutes */
  securityDenialsMax: z.number().int().min(0),
  /** critical-tier queue wait target, seconds */
  queueWaitS: z.number().min(1),
  /** wait targets of other tiers, seconds, e.g. {"standard": 3600}: QueueWaitHigh watches those too */
  queueWaitTiers: z.partialRecord(z.enum(SCHEDULING_TIERS), z.number().min(1)).optional(),
  diskUsedMax: z.number().min(0).max(1),
  memoryUsedMax: z.number().min(0).max(1),
};

/** Every threshold set (CRUCIBLE_ALERT_THRESHOLDS merged over the defaults). */
export const alertThresholds = z.object(thresholdFields).strict();
export type AlertThresholds = z.infer<typeof alertThresholds>;
/** Overrides: any subset, no defaults filled in (a run's overrides must not reset the cluster's). */
export const alertThresholdOverrides = z.object(thresholdFields).partial().strict();

/** A run's own alerting settings (run config `alerts`): thresholds of its run rules, and rules turned off. */
export const runAlertSettings = z
  .object({
    thresholds: alertThresholdOverrides.default({}),
    off: z.array(z.enum(ALERT_RULES)).max(ALERT_RULES.length).default([]),
  })
  .strict();
export type RunAlertSettings = z.infer<typeof runAlertSettings>;
