import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { alertDeliveryAttempts, alertGroups, alertNotifications } from '@/db/schema';
import { webhookBody, type NotifiedAlert } from '@/lib/alerts/webhook-payload';
import type { AlertReceiver } from './evaluate';

export type Delivery = {
  receivers: readonly AlertReceiver[];
  consoleUrl: string;
  /** attempts before a notification is given up as `failed` */
  maxAttempts?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** Seconds to wait after failed attempt n (1-based): 10 s, 20 s, 40 s … capped at 10 minutes. */
export const retryDelayS = (attempt: number) => Math.min(600, 10 * 2 ** (attempt - 1));

/**
 * Send every due notification (alert_notifications in state `pending` whose next attempt is
 * due at `now`), one at a time, each under a row lock (SKIP LOCKED: several hosts' maintenance
 * workers share the outbox). 2xx is delivered; anything else is retried with backoff and
 * after `maxAttempts` marked `failed`. Every attempt is a row of alert_delivery_attempts.
 * Receivers see an `Idempotency-Key` (group and number): a crash between their 2xx and our
 * commit re-sends the same key.
 */
export async function deliverNotifications(db: Db, now: Date, o: Delivery): Promise<{ delivered: number; failed: number; retried: number }> {
  const maxAttempts = o.maxAttempts ?? 8;
  const send = o.fetch ?? fetch;
  const out = { delivered: 0, failed: 0, retried: 0 };
  for (let i = 0; i < 1000; i++) {
    const done = await db.transaction(async (tx) => {
      const [n] = await tx
        .select()
        .from(alertNotifications)
        .where(and(eq(alertNotifications.state, 'pending'), lte(alertNotifications.nextAttemptAt, now)))
        .orderBy(alertNotifications.id)
        .limit(1)
        .for('update', { skipLocked: true });
      if (!n) return true;
      const attempt = n.attempts + 1;
      const receiver = o.receivers.find((r) => r.name === n.receiver);
      let httpStatus: number | null = null;
      let error: string | null = null;
      if (!receiver) error = `receiver ${n.receiver} is no longer configured (CRUCIBLE_ALERT_WEBHOOKS)`;
      else {
        const [group] = await tx.select({ labels: alertGroups.labels }).from(alertGroups).where(eq(alertGroups.groupKey, n.groupKey));
        const body = webhookBody(
          {
            receiver: n.receiver,
            groupKey: n.groupKey,
            seq: n.seq,
            kind: n.kind,
            groupLabels: group?.labels ?? {},
            alerts: n.alerts as NotifiedAlert[],
            consoleUrl: o.consoleUrl,
          },
          receiver.format,
        );
        try {
          const res = await send(receiver.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': `${n.groupKey}#${n.seq}`, 'user-agent': 'crucible-alerts' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
            redirect: 'error',
          });
          httpStatus = res.status;
          await res.body?.cancel().catch(() => {});
          if (!res.ok) error = `HTTP ${res.status}`;
        } catch (e) {
          error = (e as Error).message;
        }
      }
      await tx.insert(alertDeliveryAttempts).values({ notificationId: n.id, attempt, at: now, httpStatus, error, ok: error === null });
      if (error === null) {
        await tx
          .update(alertNotifications)
          .set({ state: 'delivered', attempts: attempt, deliveredAt: now, lastError: null })
          .where(eq(alertNotifications.id, n.id));
        out.delivered++;
      } else if (attempt >= maxAttempts || !receiver) {
        await tx.update(alertNotifications).set({ state: 'failed', attempts: attempt, lastError: error }).where(eq(alertNotifications.id, n.id));
        out.failed++;
      } else {
        await tx
          .update(alertNotifications)
          .set({ attempts: attempt, lastError: error, nextAttemptAt: sql`${now.toISOString()}::timestamptz + make_interval(secs => ${retryDelayS(attempt)})` })
          .where(eq(alertNotifications.id, n.id));
        out.retried++;
      }
      return false;
    });
    if (done) break;
  }
  return out;
}
