import type { AlertLabels, NotificationKind, WebhookFormat } from '@/core/alerts';
import type { AlertRecord } from './alert-state';

/** An alert as a notification carries it: Alertmanager's webhook alert object. */
export type NotifiedAlert = {
  status: 'firing' | 'resolved';
  labels: AlertLabels;
  annotations: { summary: string; description: string };
  startsAt: string;
  endsAt: string;
  fingerprint: string;
  generatorURL: string;
};

/** `alert` as sent; `resolved` for those that left the group since the last notification. */
export function notifiedAlert(a: AlertRecord, status: 'firing' | 'resolved', description: string, consoleUrl: string): NotifiedAlert {
  return {
    status,
    labels: a.labels,
    annotations: { summary: a.summary, description },
    startsAt: (a.firedAt ?? a.activeSince).toISOString(),
    // Alertmanager's "zero time" for an alert that has not ended
    endsAt: status === 'resolved' ? (a.resolvedAt ?? new Date()).toISOString() : '0001-01-01T00:00:00Z',
    fingerprint: a.fingerprint,
    generatorURL: `${consoleUrl}/alerts?fingerprint=${a.fingerprint}`,
  };
}

export type WebhookMessage = {
  receiver: string;
  groupKey: string;
  seq: number;
  kind: NotificationKind;
  groupLabels: AlertLabels;
  alerts: NotifiedAlert[];
  consoleUrl: string;
};

function commonLabels(alerts: NotifiedAlert[]): AlertLabels {
  if (alerts.length === 0) return {};
  const [first, ...rest] = alerts;
  return Object.fromEntries(Object.entries(first!.labels).filter(([k, v]) => rest.every((a) => a.labels[k] === v)));
}

/**
 * The request body for a receiver: `json` is Alertmanager's webhook payload (version 4), so
 * anything that reads Alertmanager webhooks reads ours; `slack` is an incoming-webhook
 * message (`text`, mrkdwn), one line per alert.
 */
export function webhookBody(m: WebhookMessage, format: WebhookFormat): Record<string, unknown> {
  const firing = m.alerts.filter((a) => a.status === 'firing');
  if (format === 'json')
    return {
      version: '4',
      groupKey: m.groupKey,
      truncatedAlerts: 0,
      status: m.kind,
      receiver: m.receiver,
      groupLabels: m.groupLabels,
      commonLabels: commonLabels(m.alerts),
      commonAnnotations: {},
      externalURL: m.consoleUrl,
      alerts: m.alerts,
    };
  const head =
    m.kind === 'resolved'
      ? `:white_check_mark: [RESOLVED] ${Object.values(m.groupLabels).join(' ')}`
      : `:rotating_light: [FIRING:${firing.length}] ${Object.values(m.groupLabels).join(' ')}`;
  const lines = m.alerts.slice(0, 20).map((a) => `• ${a.status === 'resolved' ? '(resolved) ' : ''}${a.annotations.summary}`);
  if (m.alerts.length > 20) lines.push(`… and ${m.alerts.length - 20} more`);
  return { text: [head, ...lines, `<${m.consoleUrl}/alerts|Open in Crucible>`].join('\n') };
}
