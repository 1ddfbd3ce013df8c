import type { Db } from '@/db/client';
import { metricSamples } from '@/db/schema';
import { METRIC_SOURCES } from '@/core/metrics';
import { RESOURCE_METRIC_LABELS } from '@/core/resources';
import type { PassReport } from './live';
import type { SchedulerConfig } from './types';

// Figures of the live scheduler for /resources and /api/metrics, written as resource samples
// next to the metrics worker's, so the existing rollup and retention apply to them too.

type Point = { name: string; value: number; labels: Record<string, string> };
/** [metric label, resource] of each resource the quota figures break down by. */
const RESOURCES = (['cpu', 'memoryMb', 'gpu'] as const).map((k) => [RESOURCE_METRIC_LABELS[k], k] as const);

/**
 * After a pass: workloads admitted and queued per tier, why the queued ones wait, and per quota
 * queue the use against its nominal quota and what it borrows beyond it.
 */
export function schedulerSamples(report: PassReport, config: SchedulerConfig): Point[] {
  const { state, result } = report;
  const admittedNow = new Set(result.admissions.map((a) => a.workloadId));
  const evicted = new Set(result.preemptions.map((p) => p.workloadId).concat(result.requeues.map((r) => r.workloadId)));
  const byId = new Map([...state.pending, ...state.running].map((w) => [w.id, w]));
  const tiers = new Map(config.tiers.map((t) => [t.name, { admitted: 0, queued: 0 }]));
  const used = new Map(config.queues.map((q) => [q.name, { cpu: 0, memoryMb: 0, gpu: 0 }]));
  const tier = (name: string) => tiers.get(name) ?? (tiers.set(name, { admitted: 0, queued: 0 }), tiers.get(name)!);
  const holding = [...state.running.filter((w) => !evicted.has(w.id)), ...state.pending.filter((w) => admittedNow.has(w.id))];
  for (const w of holding) {
    tier(w.tier).admitted++;
    const u = used.get(w.queue ?? w.tier);
    if (u) for (const [, k] of RESOURCES) u[k] += w.request[k];
  }
  for (const w of state.pending) if (!admittedNow.has(w.id)) tier(w.tier).queued++;
  for (const id of evicted) if (byId.has(id)) tier(byId.get(id)!.tier).queued++;
  const points: Point[] = [];
  for (const [name, t] of tiers) {
    points.push(
      { name: 'scheduler_admitted', value: t.admitted, labels: { tier: name } },
      { name: 'scheduler_queued', value: t.queued, labels: { tier: name } },
    );
  }
  const reasons = new Map<string, number>();
  for (const w of result.waiting) reasons.set(w.reason, (reasons.get(w.reason) ?? 0) + 1);
  for (const [reason, n] of reasons) points.push({ name: 'scheduler_waiting', value: n, labels: { reason } });
  for (const q of config.queues) {
    const u = used.get(q.name)!;
    for (const [label, k] of RESOURCES) {
      const nominal = q.nominal[k];
      const labels = { queue: q.name, tier: q.tier, resource: label };
      points.push({ name: 'scheduler_quota_used', value: u[k], labels });
      if (nominal !== undefined && Number.isFinite(nominal)) {
        points.push(
          { name: 'scheduler_quota_nominal', value: nominal, labels },
          { name: 'scheduler_quota_borrowed', value: Math.max(0, u[k] - nominal), labels },
        );
      }
    }
  }
  points.push({ name: 'scheduler_nodes', value: state.nodes.filter((n) => state.now - n.heartbeatAt <= config.leaseMs).length, labels: {} });
  return points;
}

export async function storeSchedulerSamples(db: Db, points: Point[], at = new Date()): Promise<void> {
  if (points.length === 0) return;
  await db.insert(metricSamples).values(points.map((p) => ({ source: METRIC_SOURCES.resources, name: p.name, value: p.value, labels: p.labels, at })));
}
