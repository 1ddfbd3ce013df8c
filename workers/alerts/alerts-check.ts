import type { Settings } from '@/core/settings';
import type { MaintenanceCheck } from '@/workers/maintenance/checks';
import { DEFAULT_ALERT_THRESHOLDS } from '@/core/alerts';
import { deliverNotifications } from './deliver';
import { evaluateAlerts, type AlertEvaluation } from './evaluate';

/** The alert settings of this process (core/settings.ts CRUCIBLE_ALERT_*). */
export function alertEvaluation(s: Settings): AlertEvaluation {
  return {
    thresholds: { ...DEFAULT_ALERT_THRESHOLDS, ...s.CRUCIBLE_ALERT_THRESHOLDS },
    receivers: s.CRUCIBLE_ALERT_WEBHOOKS,
    groupIntervalS: s.CRUCIBLE_ALERT_GROUP_INTERVAL_S,
    consoleUrl: s.CRUCIBLE_CONSOLE_URL ?? `http://localhost:${s.PORT}`,
  };
}

/**
 * The maintenance worker's alerting: evaluate the rules (one host at a time, under a
 * cluster-wide lock), then send due notifications with retries.
 */
export function alertsCheck(o: AlertEvaluation, everyMs: number): MaintenanceCheck {
  return {
    name: 'alerts',
    everyMs,
    async run(db) {
      const now = new Date();
      const e = await evaluateAlerts(db, now, o);
      const d = await deliverNotifications(db, now, { receivers: o.receivers, consoleUrl: o.consoleUrl });
      const parts = [
        ...e.errors.map((x) => `rule failed: ${x}`),
        e.notifications > 0 ? `${e.notifications} notification(s) queued (${e.firing} firing, ${e.muted} muted)` : '',
        d.delivered > 0 ? `${d.delivered} delivered` : '',
        d.retried > 0 ? `${d.retried} delivery attempt(s) failed, will retry` : '',
        d.failed > 0 ? `${d.failed} notification(s) given up` : '',
      ].filter(Boolean);
      if (parts.length > 0) return parts.join('; ');
    },
  };
}
