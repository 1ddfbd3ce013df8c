import { addInto, complete, fits, fitsUnder, scale, zero } from './resources';
import type { Resources } from '@/core/resources';
import type { SchedulerState } from './types';

// The benchmark's reference: the straightforward scheduler one writes first. Same inputs and
// the same hard rules (tier/priority order, queue and cohort quota, the reserve, node
// capacity), but a single sort, linear-scan first-fit over every node, no fairness heap, no
// best-fit index and no preemption. It returns the admissions and the decision count.

export function referenceFirstFit(state: SchedulerState, onDecision?: () => void): { admitted: Map<string, string>; decisions: number } {
  const { config, now } = state;
  const tierRank = new Map(config.tiers.map((t) => [t.name, t]));
  const queues = new Map(
    config.queues.map((q) => {
      const nominal = complete(q.nominal, Infinity);
      return [q.name, { q, nominal, limit: limitOf(q, nominal), used: zero() }];
    }),
  );
  const cohortNominal = new Map<string, Resources>();
  const cohortUsed = new Map<string, Resources>();
  for (const { q, nominal } of queues.values()) {
    if (!q.cohort) continue;
    if (!cohortNominal.has(q.cohort)) {
      cohortNominal.set(q.cohort, zero());
      cohortUsed.set(q.cohort, zero());
    }
    addInto(cohortNominal.get(q.cohort)!, nominal);
  }
  const nodes = state.nodes
    .filter((n) => now - n.heartbeatAt <= config.suspectAfterMs && !n.cordoned)
    .map((n) => ({ n, free: { ...n.capacity }, pool: n.pool ?? (n.capacity.gpu > 0 ? 'gpu' : 'cpu') }));
  const byId = new Map(nodes.map((x) => [x.n.id, x]));
  const poolCap = new Map<string, Resources>();
  const poolLower = new Map<string, Resources>();
  for (const x of nodes) {
    if (!poolCap.has(x.pool)) {
      poolCap.set(x.pool, zero());
      poolLower.set(x.pool, zero());
    }
    addInto(poolCap.get(x.pool)!, x.n.capacity);
  }
  const lowerCap = new Map([...poolCap].map(([k, v]) => [k, scale(v, 1 - config.reserveFraction)]));
  for (const r of state.running) {
    const x = byId.get(r.nodeId);
    if (x) addInto(x.free, r.request, -1);
    const qs = queues.get(r.queue ?? r.tier);
    if (qs) {
      addInto(qs.used, r.request);
      if (qs.q.cohort) addInto(cohortUsed.get(qs.q.cohort)!, r.request);
    }
    if (x && !tierRank.get(r.tier)?.useReserve) addInto(poolLower.get(x.pool)!, r.request);
  }
  const order = state.pending
    .filter((p) => !(p.notBefore !== undefined && p.notBefore > now))
    .sort(
      (a, b) => (tierRank.get(b.tier)?.rank ?? 0) - (tierRank.get(a.tier)?.rank ?? 0) || (b.priority ?? 0) - (a.priority ?? 0) || a.createdAt - b.createdAt,
    );
  const admitted = new Map<string, string>();
  let decisions = 0;
  for (const p of order) {
    decisions++;
    const qs = queues.get(p.queue ?? p.tier);
    const tier = tierRank.get(p.tier);
    if (
      qs &&
      tier &&
      fitsUnder(qs.used, p.request, qs.limit) &&
      (!qs.q.cohort || fitsUnder(cohortUsed.get(qs.q.cohort)!, p.request, cohortNominal.get(qs.q.cohort)!))
    ) {
      for (const x of nodes) {
        if (p.request.gpu > 0 !== (x.pool === 'gpu')) continue;
        if (!tier.useReserve && !fitsUnder(poolLower.get(x.pool)!, p.request, lowerCap.get(x.pool)!)) continue;
        if (!fits(p.request, x.free)) continue;
        addInto(x.free, p.request, -1);
        addInto(qs.used, p.request);
        if (qs.q.cohort) addInto(cohortUsed.get(qs.q.cohort)!, p.request);
        if (!tier.useReserve) addInto(poolLower.get(x.pool)!, p.request);
        admitted.set(p.id, x.n.id);
        break;
      }
    }
    onDecision?.();
  }
  return { admitted, decisions };
}

function limitOf(q: { cohort?: string; borrowingLimit?: Partial<Resources> }, nominal: Resources): Resources {
  if (!q.cohort) return nominal;
  const l = { ...nominal };
  addInto(l, complete(q.borrowingLimit, Infinity));
  return l;
}
