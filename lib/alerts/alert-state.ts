import { createHash } from 'node:crypto';
import type { AlertLabels, AlertRuleName, AlertSeverity, AlertState } from '@/core/alerts';
import type { ActiveCondition } from './rules';

/** An alert as the state machine and filtering see it (a row of `alerts`, as plain data). */
export type AlertRecord = {
  fingerprint: string;
  rule: AlertRuleName;
  severity: AlertSeverity;
  labels: AlertLabels;
  summary: string;
  value: number | null;
  state: AlertState;
  activeSince: Date;
  firedAt: Date | null;
  resolvedAt: Date | null;
  inhibitedBy: string | null;
  silencedBy: string | null;
  acknowledgedBy: string | null;
};

/** An alert's identity: the sha256 of its labels in key order (Alertmanager's fingerprint). */
export function fingerprint(labels: AlertLabels): string {
  const canonical = JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/**
 * One evaluation's step, as Prometheus does it: a condition seen for the first time (or again
 * after it resolved) is `pending` from now; pending becomes `firing` once it has held for the
 * rule's `for:`; a firing alert whose condition is gone is `resolved`; a pending one is
 * dropped (it never fired). Same labels, same alert: re-evaluation updates, never duplicates.
 */
export function advanceAlerts(prev: readonly AlertRecord[], active: readonly ActiveCondition[], now: Date): { next: AlertRecord[]; dropped: string[] } {
  const byFp = new Map(prev.map((a) => [a.fingerprint, a]));
  const seen = new Set<string>();
  const next: AlertRecord[] = [];
  for (const c of active) {
    const fp = fingerprint(c.labels);
    if (seen.has(fp)) continue; // one rule reporting the same labels twice is one alert
    seen.add(fp);
    const old = byFp.get(fp);
    const fresh = !old || old.state === 'resolved';
    const activeSince = fresh ? now : old.activeSince;
    const held = (now.getTime() - activeSince.getTime()) / 1000 >= c.forS;
    const wasFiring = !fresh && old.state === 'firing';
    next.push({
      fingerprint: fp,
      rule: c.rule,
      severity: c.severity,
      labels: c.labels,
      summary: c.summary,
      value: c.value,
      state: wasFiring || held ? 'firing' : 'pending',
      activeSince,
      firedAt: wasFiring ? old.firedAt : held ? now : null,
      resolvedAt: null,
      inhibitedBy: null,
      silencedBy: null,
      // an acknowledgement covers one episode of the alert; a new one needs a new ack
      acknowledgedBy: fresh ? null : old.acknowledgedBy,
    });
  }
  const dropped: string[] = [];
  for (const a of prev) {
    if (seen.has(a.fingerprint)) continue;
    if (a.state === 'pending') dropped.push(a.fingerprint);
    else if (a.state === 'firing') next.push({ ...a, state: 'resolved', resolvedAt: now, inhibitedBy: null, silencedBy: null });
    else next.push(a);
  }
  return { next, dropped };
}
