import { ALERT_GROUP_BY, INHIBIT_RULES, labelsMatch, type AlertLabels, type InhibitRule, type NotificationKind, type SilenceMatchers } from '@/core/alerts';
import type { AlertRecord } from './alert-state';

export type Silence = { id: string; matchers: SilenceMatchers; expiresAt: Date; endedAt: Date | null };

/**
 * Inhibition: a firing target alert is muted while a firing source alert of an inhibit rule
 * shares the rule's `equal` labels (a lost node explains its workers' alerts). Returns
 * fingerprint → the source's fingerprint.
 */
export function inhibitions(alerts: readonly AlertRecord[], rules: readonly InhibitRule[] = INHIBIT_RULES): Map<string, string> {
  const firing = alerts.filter((a) => a.state === 'firing');
  const out = new Map<string, string>();
  for (const target of firing) {
    for (const rule of rules) {
      if (rule.target && !labelsMatch(target.labels, rule.target)) continue;
      const source = firing.find(
        (s) =>
          s.fingerprint !== target.fingerprint &&
          labelsMatch(s.labels, rule.source) &&
          !labelsMatch(target.labels, rule.source) &&
          rule.equal.every((l) => s.labels[l] !== undefined && s.labels[l] === target.labels[l]),
      );
      if (source) {
        out.set(target.fingerprint, source.fingerprint);
        break;
      }
    }
  }
  return out;
}

/** A silence in force at `now`: not ended and not expired. */
export const silenceActive = (s: Silence, now: Date) => s.endedAt === null && s.expiresAt.getTime() > now.getTime();

/** The first active silence matching the alert's labels, if any. */
export function silencedBy(labels: AlertLabels, silences: readonly Silence[], now: Date): string | null {
  return silences.find((s) => silenceActive(s, now) && labelsMatch(labels, s.matchers))?.id ?? null;
}

/** The labels an alert is grouped by, and the group's key (`alertname="X",run="Y"`). */
export function groupOf(labels: AlertLabels): { key: string; labels: AlertLabels } {
  const g: AlertLabels = {};
  for (const l of ALERT_GROUP_BY) if (labels[l] !== undefined) g[l] = labels[l];
  return {
    key: Object.entries(g)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(','),
    labels: g,
  };
}

/** Marks each alert inhibited or silenced (muted alerts stay visible in the console, they are just not notified). */
export function applyFilters(alerts: readonly AlertRecord[], silences: readonly Silence[], now: Date): AlertRecord[] {
  const inhibited = inhibitions(alerts);
  return alerts.map((a) =>
    a.state === 'firing'
      ? { ...a, inhibitedBy: inhibited.get(a.fingerprint) ?? null, silencedBy: silencedBy(a.labels, silences, now) }
      : { ...a, inhibitedBy: null, silencedBy: null },
  );
}

/** What a group was last told (a row of `alert_groups`). */
export type GroupState = { key: string; notified: string[]; notifiedAt: Date | null; seq: number };

export type PlannedNotification = {
  groupKey: string;
  groupLabels: AlertLabels;
  seq: number;
  kind: NotificationKind;
  /** the firing alerts, and those that resolved (or were muted) since the last notification */
  firing: AlertRecord[];
  resolved: AlertRecord[];
};

/**
 * Alertmanager's notification pipeline over the filtered alerts: per group, the set of
 * notifiable alerts (firing, not inhibited, not silenced). A group is notified when that set
 * changes: at once when it goes from empty to non-empty or back to empty (a resolve
 * notification), and at most every `groupIntervalS` while it changes otherwise, so 40
 * alerts arriving over a few evaluations make one or two notifications, not 40. An unchanged
 * set is never re-sent: each group's notifications are numbered, each number sent once.
 */
export function planNotifications(
  alerts: readonly AlertRecord[],
  groups: ReadonlyMap<string, GroupState>,
  now: Date,
  groupIntervalS: number,
): { notifications: PlannedNotification[]; groups: GroupState[] } {
  const byGroup = new Map<string, { labels: AlertLabels; members: AlertRecord[] }>();
  for (const a of alerts) {
    const g = groupOf(a.labels);
    const entry = byGroup.get(g.key) ?? { labels: g.labels, members: [] };
    entry.members.push(a);
    byGroup.set(g.key, entry);
  }
  for (const [key, state] of groups) if (!byGroup.has(key) && state.notified.length > 0) byGroup.set(key, { labels: {}, members: [] });

  const notifications: PlannedNotification[] = [];
  const updated: GroupState[] = [];
  for (const [key, { labels, members }] of byGroup) {
    const state = groups.get(key) ?? { key, notified: [], notifiedAt: null, seq: 0 };
    const byFp = (a: AlertRecord, b: AlertRecord) => a.fingerprint.localeCompare(b.fingerprint);
    const firing = members.filter((a) => a.state === 'firing' && !a.inhibitedBy && !a.silencedBy).sort(byFp);
    // Muting is not resolving: an alert already notified and now silenced or inhibited counts as
    // unchanged (no resolve message for a silence, no repeat when it ends); one muted before it
    // was ever notified is not sent.
    const mutedNotified = members.filter((a) => a.state === 'firing' && (a.inhibitedBy || a.silencedBy) && state.notified.includes(a.fingerprint));
    const effective = [...firing, ...mutedNotified].map((a) => a.fingerprint).sort();
    const same = effective.length === state.notified.length && effective.every((f, i) => f === state.notified[i]);
    if (same) continue;
    const gone = members.filter((a) => state.notified.includes(a.fingerprint) && !effective.includes(a.fingerprint));
    const dueAgain = state.notifiedAt === null || now.getTime() - state.notifiedAt.getTime() >= groupIntervalS * 1000;
    const kind: NotificationKind = effective.length === 0 ? 'resolved' : 'firing';
    if (kind === 'firing' && state.notified.length > 0 && !dueAgain) continue; // batch changes within the group interval
    if (kind === 'firing' && firing.length === 0) {
      // only notified-then-muted alerts are left, and some others resolved: record it quietly
      updated.push({ ...state, notified: effective });
      continue;
    }
    const seq = state.seq + 1;
    notifications.push({ groupKey: key, groupLabels: labels, seq, kind, firing, resolved: gone.sort(byFp) });
    updated.push({ key, notified: effective, notifiedAt: now, seq });
  }
  return { notifications, groups: updated };
}
