/**
 * Alerting contract: severities, an alert's states, label names, and the Alertmanager-style
 * filtering settings (grouping, inhibition). Shared by the rules evaluator (workers/alerts),
 * the alerts service and router (server/alerts), the console and the CLI. Imports nothing
 * from the project.
 */

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
