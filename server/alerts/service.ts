import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ALERT_LIMITS, ALERT_STATES } from '@/core/alerts';
import type { Db } from '@/db/client';
import { alertDeliveryAttempts, alertNotifications, alerts, alertSilences } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';

const labelName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a label name (letters, digits, _)');

export const alertListInput = z
  .object({
    /** `active`: pending and firing; or one state */
    state: z.enum(['active', ...ALERT_STATES]).default('active'),
    runId: z.string().uuid().optional(),
    limit: z.number().int().min(1).max(500).default(200),
  })
  .strict();

/** Alerts, firing first (critical first), then pending, newest first; with the silence that mutes each. */
export async function listAlerts(db: Db, input: z.input<typeof alertListInput>) {
  const q = alertListInput.parse(input);
  const states = q.state === 'active' ? (['pending', 'firing'] as const) : ([q.state] as const);
  const rows = await db
    .select({ alert: alerts, silenceReason: alertSilences.reason, silenceExpiresAt: alertSilences.expiresAt })
    .from(alerts)
    .leftJoin(alertSilences, eq(alertSilences.id, alerts.silencedBy))
    .where(and(inArray(alerts.state, [...states]), q.runId ? eq(alerts.runId, q.runId) : undefined))
    .orderBy(
      sql`case ${alerts.state} when 'firing' then 0 when 'pending' then 1 else 2 end`,
      sql`case ${alerts.severity} when 'critical' then 0 when 'warning' then 1 else 2 end`,
      desc(alerts.activeSince),
    )
    .limit(q.limit);
  return rows.map((r) => ({ ...r.alert, silenceReason: r.silenceReason, silenceExpiresAt: r.silenceExpiresAt }));
}

/** For the nav and run banners: firing alerts nobody has acknowledged and nothing mutes. */
export async function alertCounts(db: Db) {
  const [row] = await db
    .select({
      firing: sql<number>`count(*) filter (where ${alerts.inhibitedBy} is null and ${alerts.silencedBy} is null and ${alerts.acknowledgedBy} is null)::int`,
      critical: sql<number>`count(*) filter (where ${alerts.severity} = 'critical' and ${alerts.inhibitedBy} is null and ${alerts.silencedBy} is null and ${alerts.acknowledgedBy} is null)::int`,
      muted: sql<number>`count(*) filter (where ${alerts.inhibitedBy} is not null or ${alerts.silencedBy} is not null)::int`,
    })
    .from(alerts)
    .where(eq(alerts.state, 'firing'));
  return { firing: row?.firing ?? 0, critical: row?.critical ?? 0, muted: row?.muted ?? 0 };
}

export const acknowledgeInput = z.object({ id: z.string().uuid() }).strict();

/** "I am on it": shown on the alert, dropped from the nav count. A new firing of the same alert needs a new acknowledgement. */
export async function acknowledgeAlert(db: Db, input: z.input<typeof acknowledgeInput>, actor: string) {
  const { id } = acknowledgeInput.parse(input);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(alerts)
      .set({ acknowledgedBy: actor, acknowledgedAt: new Date() })
      .where(and(eq(alerts.id, id), inArray(alerts.state, ['pending', 'firing'])))
      .returning({ id: alerts.id, rule: alerts.rule, labels: alerts.labels });
    if (!row) throw new DomainError('NOT_FOUND', `no active alert ${id} (it may have resolved); refresh the alerts page`);
    await appendAudit(tx, { actor, action: 'alert.acknowledge', targetType: 'alert', targetId: id, details: { rule: row.rule, labels: row.labels } });
    return row;
  });
}

export const silenceInput = z
  .object({
    matchers: z
      .record(labelName, z.string().min(1).max(200))
      .refine((m) => Object.keys(m).length >= 1, 'a silence needs at least one matcher (e.g. alertname or run)')
      .refine((m) => Object.keys(m).length <= ALERT_LIMITS.matchersMax, `at most ${ALERT_LIMITS.matchersMax} matchers`),
    reason: z.string().trim().min(3, 'say why (at least 3 characters): the next person on call reads it').max(ALERT_LIMITS.reasonMaxChars),
    hours: z.number().positive().max(ALERT_LIMITS.silenceMaxHours, `a silence lasts at most ${ALERT_LIMITS.silenceMaxHours} hours`),
  })
  .strict();

/** A silence: alerts whose labels match are not notified until it expires (or is ended). Audited. */
export async function createSilence(db: Db, input: z.input<typeof silenceInput>, actor: string, now = new Date()) {
  const s = silenceInput.parse(input);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(alertSilences)
      .values({ matchers: s.matchers, reason: s.reason, createdBy: actor, createdAt: now, expiresAt: new Date(now.getTime() + s.hours * 3_600_000) })
      .returning();
    await appendAudit(tx, {
      actor,
      action: 'alert.silence',
      targetType: 'alert_silence',
      targetId: row!.id,
      details: { matchers: s.matchers, reason: s.reason, expiresAt: row!.expiresAt.toISOString() },
    });
    return row!;
  });
}

export const endSilenceInput = z.object({ id: z.string().uuid() }).strict();

/** Un-silence now. Audited. */
export async function endSilence(db: Db, input: z.input<typeof endSilenceInput>, actor: string, now = new Date()) {
  const { id } = endSilenceInput.parse(input);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(alertSilences)
      .set({ endedAt: now, endedBy: actor })
      .where(and(eq(alertSilences.id, id), isNull(alertSilences.endedAt), gt(alertSilences.expiresAt, now)))
      .returning();
    if (!row) throw new DomainError('NOT_FOUND', `no active silence ${id} (it may have expired or been ended already)`);
    await appendAudit(tx, { actor, action: 'alert.unsilence', targetType: 'alert_silence', targetId: id, details: { matchers: row.matchers } });
    return row;
  });
}

export const silenceListInput = z.object({ includeEnded: z.boolean().default(false) }).strict();

export async function listSilences(db: Db, input: z.input<typeof silenceListInput> = {}, now = new Date()) {
  const { includeEnded } = silenceListInput.parse(input);
  return db
    .select()
    .from(alertSilences)
    .where(includeEnded ? undefined : and(isNull(alertSilences.endedAt), gt(alertSilences.expiresAt, now)))
    .orderBy(desc(alertSilences.createdAt))
    .limit(200);
}

export const deliveryListInput = z.object({ limit: z.number().int().min(1).max(200).default(50) }).strict();

/** The delivery log: notifications newest first, each with its attempts. */
export async function listDeliveries(db: Db, input: z.input<typeof deliveryListInput> = {}) {
  const { limit } = deliveryListInput.parse(input);
  const notes = await db.select().from(alertNotifications).orderBy(desc(alertNotifications.id)).limit(limit);
  const attempts =
    notes.length === 0
      ? []
      : await db
          .select()
          .from(alertDeliveryAttempts)
          .where(
            inArray(
              alertDeliveryAttempts.notificationId,
              notes.map((n) => n.id),
            ),
          )
          .orderBy(alertDeliveryAttempts.id);
  return notes.map((n) => ({ ...n, alerts: n.alerts.length, attemptLog: attempts.filter((a) => a.notificationId === n.id) }));
}
