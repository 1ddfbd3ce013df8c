import { and, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { AlertThresholds, WebhookFormat } from '@/core/alerts';
import type { Db } from '@/db/client';
import { alertGroups, alertNotifications, alerts, alertSilences } from '@/db/schema';
import { advanceAlerts, type AlertRecord } from '@/lib/alerts/alert-state';
import { applyFilters, groupOf, planNotifications, type GroupState } from '@/lib/alerts/filtering';
import { ALERT_RULE_DEFINITIONS, evaluateRules, type AlertRule } from '@/lib/alerts/rules';
import { notifiedAlert } from '@/lib/alerts/webhook-payload';
import { gatherAlertInputs } from '@/server/alerts/gather';

export type AlertReceiver = { name: string; url: string; format: WebhookFormat };

export type AlertEvaluation = {
  thresholds: AlertThresholds;
  receivers: readonly AlertReceiver[];
  groupIntervalS: number;
  /** the console's address, for links in notifications */
  consoleUrl: string;
  rules?: readonly AlertRule[];
};

/** Only one evaluator at a time, cluster-wide (every host's maintenance worker tries). */
const EVALUATOR_LOCK = 0x6372_616c; // 'cral'
/** Resolved alerts stay listed (and in their group's resolve notification) this long. */
const RESOLVED_KEEP_MS = 7 * 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type EvaluationResult = { evaluated: boolean; pending: number; firing: number; muted: number; notifications: number; errors: string[] };

/**
 * One evaluation at `now`: gather the inputs, step every alert (pending → firing → resolved),
 * apply inhibitions and silences, and queue one notification per changed group per receiver
 * (alert_notifications, delivered by deliverNotifications). All of it in one transaction under
 * a cluster-wide lock, so two evaluators never double-notify; a group's notifications are
 * numbered and (receiver, group, number) is unique.
 */
export async function evaluateAlerts(db: Db, now: Date, o: AlertEvaluation): Promise<EvaluationResult> {
  const describe = new Map((o.rules ?? ALERT_RULE_DEFINITIONS).map((r) => [r.name, r.description]));
  return db.transaction(async (tx) => {
    const [lock] = await tx.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${EVALUATOR_LOCK}) as ok`);
    if (!lock?.ok) return { evaluated: false, pending: 0, firing: 0, muted: 0, notifications: 0, errors: [] };

    const inputs = await gatherAlertInputs(tx, now, o.thresholds);
    const { active, errors } = evaluateRules(inputs, o.rules);
    const prevRows = await tx
      .select()
      .from(alerts)
      .where(or(inArray(alerts.state, ['pending', 'firing']), gt(alerts.resolvedAt, new Date(now.getTime() - RESOLVED_KEEP_MS))));
    const prev: AlertRecord[] = prevRows.map((r) => ({
      fingerprint: r.fingerprint,
      rule: r.rule as AlertRecord['rule'],
      severity: r.severity,
      labels: r.labels,
      summary: r.summary,
      value: r.value,
      state: r.state,
      activeSince: r.activeSince,
      firedAt: r.firedAt,
      resolvedAt: r.resolvedAt,
      inhibitedBy: r.inhibitedBy,
      silencedBy: r.silencedBy,
      acknowledgedBy: r.acknowledgedBy,
    }));
    const stepped = advanceAlerts(prev, active, now);
    const prevByFp = new Map(prevRows.map((r) => [r.fingerprint, r]));
    const silences = await tx
      .select({ id: alertSilences.id, matchers: alertSilences.matchers, expiresAt: alertSilences.expiresAt, endedAt: alertSilences.endedAt })
      .from(alertSilences)
      .where(and(isNull(alertSilences.endedAt), gt(alertSilences.expiresAt, now)));
    const next = applyFilters(stepped.next, silences, now);

    // only the groups that matter now: those of the alerts at hand, and those still owed a resolve
    const keys = [...new Set(next.map((a) => groupOf(a.labels).key))];
    const groupRows = await tx
      .select()
      .from(alertGroups)
      .where(or(sql`${alertGroups.notified} <> '[]'::jsonb`, keys.length ? inArray(alertGroups.groupKey, keys) : undefined));
    const groups = new Map<string, GroupState>(
      groupRows.map((g) => [g.groupKey, { key: g.groupKey, notified: g.notified, notifiedAt: g.notifiedAt, seq: g.seq }]),
    );
    const plan = planNotifications(next, groups, now, o.groupIntervalS);

    if (stepped.dropped.length > 0) await tx.delete(alerts).where(inArray(alerts.fingerprint, stepped.dropped));
    await tx.delete(alerts).where(and(eq(alerts.state, 'resolved'), lt(alerts.resolvedAt, new Date(now.getTime() - RESOLVED_KEEP_MS))));
    for (const a of next) {
      const changed = prevByFp.get(a.fingerprint);
      if (
        changed &&
        changed.state === a.state &&
        changed.summary === a.summary &&
        changed.value === a.value &&
        changed.inhibitedBy === a.inhibitedBy &&
        changed.silencedBy === a.silencedBy &&
        a.state === 'resolved'
      )
        continue; // a resolved alert at rest needs no write
      const groupKey = groupOf(a.labels).key;
      const values = {
        fingerprint: a.fingerprint,
        rule: a.rule,
        severity: a.severity,
        labels: a.labels,
        summary: a.summary,
        value: a.value,
        state: a.state,
        runId: a.labels.run && UUID.test(a.labels.run) ? a.labels.run : null,
        groupKey,
        activeSince: a.activeSince,
        firedAt: a.firedAt,
        resolvedAt: a.resolvedAt,
        lastEvaluatedAt: now,
        inhibitedBy: a.inhibitedBy,
        silencedBy: a.silencedBy,
        acknowledgedBy: a.acknowledgedBy,
        acknowledgedAt: a.acknowledgedBy ? undefined : null,
      };
      await tx.insert(alerts).values(values).onConflictDoUpdate({ target: alerts.fingerprint, set: values });
    }

    for (const g of plan.groups)
      await tx
        .insert(alertGroups)
        .values({
          groupKey: g.key,
          labels: plan.notifications.find((n) => n.groupKey === g.key)?.groupLabels ?? {},
          notified: g.notified,
          notifiedAt: g.notifiedAt,
          seq: g.seq,
        })
        .onConflictDoUpdate({ target: alertGroups.groupKey, set: { notified: g.notified, notifiedAt: g.notifiedAt, seq: g.seq } });
    let queued = 0;
    for (const n of plan.notifications) {
      const payload = [
        ...n.firing.map((a) => notifiedAlert(a, 'firing', describe.get(a.rule) ?? '', o.consoleUrl)),
        ...n.resolved.map((a) => notifiedAlert(a, 'resolved', describe.get(a.rule) ?? '', o.consoleUrl)),
      ];
      for (const r of o.receivers) {
        const inserted = await tx
          .insert(alertNotifications)
          .values({ groupKey: n.groupKey, seq: n.seq, receiver: r.name, kind: n.kind, alerts: payload, nextAttemptAt: now })
          .onConflictDoNothing()
          .returning({ id: alertNotifications.id });
        queued += inserted.length;
      }
    }
    return {
      evaluated: true,
      pending: next.filter((a) => a.state === 'pending').length,
      firing: next.filter((a) => a.state === 'firing').length,
      muted: next.filter((a) => a.state === 'firing' && (a.inhibitedBy || a.silencedBy)).length,
      notifications: queued,
      errors,
    };
  });
}
