import { Heap } from './heap';
import { mayUse, newSlot, PoolIndex, type NodeSlot } from './node-index';
import { addInto, complete, copy, dominantShare, excess, fits, fitsUnder, reduces, scale, zero, anyPositive } from './resources';
import type { Resources } from '@/core/resources';
import { InvariantError } from '@/core/must';
import type {
  Admission,
  PendingWorkload,
  Preemption,
  Requeue,
  RunningWorkload,
  SchedulerState,
  SchedulingResult,
  TierConfig,
  QueueConfig,
  WaitReason,
  Waiting,
} from './types';

// The scheduling core: a pure function of state. `schedule(state)` decides, for one instant,
// which pending workloads start where, which running ones are evicted for them, and which are
// requeued because their node was lost. It mutates nothing it is given, so the live worker (fed
// from the database) and the simulator (fed from virtual time) run exactly the same code.
//
// Order: tier rank, then priority class, then the run with the smallest dominant share in that
// tier (dominant resource fairness), then oldest first. Groups of (queue, priority, run) sit in
// a heap keyed that way, so each decision costs O(log groups) plus a best-fit lookup in a
// sorted pool index; preemption is the only step that scans running workloads.

interface TierState {
  cfg: TierConfig;
}
interface CohortState {
  name: string;
  nominal: Resources;
  used: Resources;
}
interface QueueState {
  cfg: QueueConfig;
  tier: TierState;
  nominal: Resources;
  /** nominal + borrowing limit inside a cohort; nominal alone without one. */
  limit: Resources;
  used: Resources;
  cohort?: CohortState;
}
interface RunShare {
  used: Resources;
  share: number;
}
/** A running workload as seen by the preemption search. */
interface RunSlot {
  w: RunningWorkload;
  queue?: QueueState;
  pool?: PoolIndex;
  node?: NodeSlot;
  rank: number;
  priority: number;
  run?: RunShare;
  taken: boolean;
}
interface Group {
  queue: QueueState;
  rank: number;
  priority: number;
  run: RunShare;
  items: PendingWorkload[];
  next: number;
  /** The run's share when this entry was pushed; stale entries are re-pushed on pop. */
  pushedShare: number;
  /** Its head has waited past the tier's aging point: it goes before the fair-share order. */
  aged: boolean;
}

const EPS = 1e-12;

/** The group's next workload. A group is only built, pushed or ordered while it has one. */
function headOf(g: Group): PendingWorkload {
  const w = g.items[g.next];
  if (!w) throw new InvariantError(`scheduler group for queue ${g.queue.cfg.name} has no workload at ${g.next} of ${g.items.length} (this is a bug)`);
  return w;
}
/** A workload waiting past this fraction of its tier's starvation bound is aged (a node drains for it). */
const AGING_FRACTION = 0.25;
/** At most this share of a pool's nodes is held for aged workloads at once. */
const MAX_HELD_FRACTION = 0.1;

/** Decide one scheduling instant. */
export function schedule(state: SchedulerState): SchedulingResult {
  const pass = new SchedulingPass(state);
  while (pass.step()) {
    /* each step is one decision */
  }
  return pass.result();
}

/** One pass, exposed step by step so the benchmark can time single decisions. */
export class SchedulingPass {
  private readonly now: number;
  private readonly tiers = new Map<string, TierState>();
  private readonly queues = new Map<string, QueueState>();
  private readonly pools = new Map<string, PoolIndex>();
  private readonly nodes = new Map<string, NodeSlot>();
  private readonly runs = new Map<string, RunShare>();
  private readonly lowerCap = new Map<PoolIndex, Resources>();
  private readonly clusterTotal = zero();
  private readonly gpuPools: PoolIndex[] = [];
  private readonly cpuPools: PoolIndex[] = [];
  private readonly running: RunSlot[] = [];
  private byNode?: Map<NodeSlot, RunSlot[]>;
  private newestFirst?: RunSlot[];
  /** Requests that already failed to preempt, per queue and priority; cleared when anything frees. */
  private failedPreempt = new Map<string, Resources[]>();
  private readonly holdsLeft = new Map<PoolIndex, number>();
  private readonly heap = new Heap<Group>((a, b) =>
    a.rank !== b.rank
      ? a.rank > b.rank
      : a.priority !== b.priority
        ? a.priority > b.priority
        : a.aged !== b.aged
          ? a.aged
          : Math.abs(a.pushedShare - b.pushedShare) > EPS
            ? a.pushedShare < b.pushedShare
            : headOf(a).createdAt < headOf(b).createdAt,
  );

  private readonly admissions: Admission[] = [];
  private readonly preemptions: Preemption[] = [];
  private readonly requeues: Requeue[] = [];
  private readonly waiting: Waiting[] = [];
  private decisions = 0;

  constructor(private readonly state: SchedulerState) {
    const { config } = state;
    this.now = state.now;
    for (const t of config.tiers) this.tiers.set(t.name, { cfg: t });
    const cohorts = new Map<string, CohortState>();
    for (const q of config.queues) {
      const tier = this.tiers.get(q.tier);
      if (!tier) continue;
      const nominal = complete(q.nominal, Infinity);
      let cohort: CohortState | undefined;
      if (q.cohort) {
        cohort = cohorts.get(q.cohort);
        if (!cohort) cohorts.set(q.cohort, (cohort = { name: q.cohort, nominal: zero(), used: zero() }));
        addInto(cohort.nominal, nominal);
      }
      const limit = cohort ? copy(nominal) : nominal;
      if (cohort) addInto(limit, complete(q.borrowingLimit, Infinity));
      this.queues.set(q.name, { cfg: q, tier, nominal, limit, used: zero(), cohort });
    }

    // Nodes: lost ones (silent past their lease) take no part; their workloads are requeued.
    for (const n of state.nodes) {
      if (this.now - n.heartbeatAt > config.leaseMs) continue;
      this.nodes.set(n.id, newSlot(n, !n.cordoned && this.now - n.heartbeatAt <= config.suspectAfterMs));
    }
    const registered = new Map(state.nodes.map((n) => [n.id, n]));
    for (const r of state.running) {
      const node = this.nodes.get(r.nodeId);
      const queue = this.queues.get(r.queue ?? r.tier);
      const slot: RunSlot = {
        w: r,
        queue,
        node,
        taken: false,
        rank: queue?.tier.cfg.rank ?? this.tiers.get(r.tier)?.cfg.rank ?? -Infinity,
        priority: r.priority ?? 0,
      };
      if (!node) {
        const known = registered.get(r.nodeId);
        this.requeues.push({
          workloadId: r.id,
          nodeId: r.nodeId,
          reason: 'node-lost',
          message: known
            ? `node ${r.nodeId} sent no heartbeat for ${Math.round((this.now - known.heartbeatAt) / 1000)} s (lease ${config.leaseMs / 1000} s)`
            : `node ${r.nodeId} is not registered`,
        });
        continue;
      }
      addInto(node.free, r.request, -1);
      if (queue) {
        addInto(queue.used, r.request);
        if (queue.cohort) addInto(queue.cohort.used, r.request);
      }
      slot.run = this.runShare(r.tier, r.runId);
      addInto(slot.run.used, r.request);
      this.running.push(slot);
    }
    for (const node of this.nodes.values()) {
      let pool = this.pools.get(node.pool);
      if (!pool) this.pools.set(node.pool, (pool = new PoolIndex(node.pool)));
      pool.addNode(node);
      addInto(this.clusterTotal, node.info.capacity);
    }
    for (const pool of this.pools.values()) {
      pool.finish();
      this.lowerCap.set(pool, scale(pool.capacity, 1 - config.reserveFraction));
      (pool.hasGpu ? this.gpuPools : this.cpuPools).push(pool);
    }
    for (const s of this.running) {
      s.pool = this.pools.get(s.node!.pool)!;
      addInto(s.pool.used, s.w.request);
      if (!s.queue?.tier.cfg.useReserve) addInto(s.pool.lowerUsed, s.w.request);
    }
    for (const run of this.runs.values()) run.share = dominantShare(run.used, this.clusterTotal);

    // Pending: backoff and unknown queues wait; the rest is grouped for the heap.
    const groups = new Map<string, Group>();
    for (const p of state.pending) {
      if (p.notBefore !== undefined && p.notBefore > this.now) {
        this.waiting.push({ workloadId: p.id, reason: 'backoff' });
        continue;
      }
      const queue = this.queues.get(p.queue ?? p.tier);
      if (!queue || queue.tier.cfg.name !== p.tier) {
        this.decisions++;
        this.waiting.push({ workloadId: p.id, reason: 'unknown-queue' });
        continue;
      }
      const priority = p.priority ?? 0;
      const key = `${queue.cfg.name}\u0000${priority}\u0000${p.runId}`;
      let g = groups.get(key);
      if (!g) {
        const run = this.runShare(p.tier, p.runId);
        groups.set(key, (g = { queue, rank: queue.tier.cfg.rank, priority, run, items: [], next: 0, pushedShare: run.share, aged: false }));
      }
      g.items.push(p);
    }
    for (const g of groups.values()) {
      g.items.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      g.aged = this.isAged(headOf(g), g.queue);
      this.heap.push(g);
    }
    for (const pool of this.pools.values()) this.holdsLeft.set(pool, Math.max(1, Math.ceil(pool.nodes.length * MAX_HELD_FRACTION)));
  }

  /** Make one decision; false when nothing is left to decide. */
  step(): boolean {
    for (;;) {
      const g = this.heap.pop();
      if (!g) return false;
      if (g.run.share > g.pushedShare + EPS) {
        // The run got more since this entry was pushed: its place in the order moved back.
        g.pushedShare = g.run.share;
        this.heap.push(g);
        continue;
      }
      const w = headOf(g);
      g.next++;
      this.decide(w, g.queue);
      if (g.next < g.items.length) {
        g.pushedShare = g.run.share;
        g.aged = this.isAged(headOf(g), g.queue);
        this.heap.push(g);
      }
      return true;
    }
  }

  result(): SchedulingResult {
    return {
      admissions: this.admissions,
      preemptions: this.preemptions,
      requeues: this.requeues,
      waiting: this.waiting,
      stats: {
        decisions: this.decisions,
        admitted: this.admissions.length,
        preempted: this.preemptions.length,
        requeued: this.requeues.length,
      },
    };
  }

  private isAged(w: PendingWorkload, q: QueueState): boolean {
    return this.now - (w.queuedAt ?? w.createdAt) >= q.tier.cfg.starvationBoundMs * AGING_FRACTION;
  }

  /**
   * Hold the node closest to fitting an aged workload that fits nowhere, so smaller work of
   * its tier and below stops refilling it (a big workload is otherwise starved by small ones).
   * Stateless: recomputed every pass, and the same node stays closest while it drains.
   */
  private hold(w: PendingWorkload, q: QueueState, pools: PoolIndex[]): void {
    const req = w.request;
    const rank = q.tier.cfg.rank;
    const priority = w.priority ?? 0;
    let best: { pool: PoolIndex; node: NodeSlot; score: number } | undefined;
    for (const pool of pools) {
      if ((this.holdsLeft.get(pool) ?? 0) <= 0) continue;
      for (const node of pool.nodes) {
        if (node.hold || !fits(req, node.info.capacity)) continue;
        let score = Infinity;
        for (const k of KEYS) if (req[k] > 0) score = Math.min(score, node.free[k] / req[k]);
        if (!best || score > best.score) best = { pool, node, score };
      }
    }
    if (!best) return;
    best.node.hold = { rank, priority, workloadId: w.id };
    this.holdsLeft.set(best.pool, this.holdsLeft.get(best.pool)! - 1);
  }

  private runShare(tier: string, runId: string): RunShare {
    const key = `${tier}\u0000${runId}`;
    let r = this.runs.get(key);
    if (!r) this.runs.set(key, (r = { used: zero(), share: 0 }));
    return r;
  }

  private decide(w: PendingWorkload, q: QueueState): void {
    this.decisions++;
    const req = w.request;
    const pools = this.poolsFor(w);
    if (pools.length === 0) {
      this.waiting.push({ workloadId: w.id, reason: 'no-pool' });
      return;
    }
    const rank = q.tier.cfg.rank;
    const priority = w.priority ?? 0;
    let reason: WaitReason;
    /** Some node has room now (the blocker is quota or the reserve, not capacity). */
    let roomy: { pool: PoolIndex; node: NodeSlot } | undefined;
    if (!fitsUnder(q.used, req, q.limit)) reason = 'quota';
    else if (q.cohort && !fitsUnder(q.cohort.used, req, q.cohort.nominal)) reason = 'cohort';
    else {
      reason = 'capacity';
      const useReserve = q.tier.cfg.useReserve;
      for (const pool of pools) {
        const node = pool.bestFit(req, rank, priority);
        if (!node) continue;
        if (!useReserve && !fitsUnder(pool.lowerUsed, req, this.lowerCap.get(pool)!)) {
          reason = 'reserve';
          roomy ??= { pool, node };
          continue;
        }
        this.admit(w, q, pool, node, []);
        return;
      }
    }
    if (q.tier.cfg.canPreempt) {
      if (reason === 'quota' || reason === 'cohort') {
        for (const pool of pools) {
          const node = pool.bestFit(req, rank, priority);
          if (node) {
            roomy = { pool, node };
            break;
          }
        }
      }
      if (this.tryPreempt(w, q, pools, roomy)) return;
    }
    if (reason === 'capacity' && this.isAged(w, q)) this.hold(w, q, pools);
    this.waiting.push({ workloadId: w.id, reason });
  }

  private poolsFor(w: PendingWorkload): PoolIndex[] {
    if (w.pool) {
      const p = this.pools.get(w.pool);
      return p ? [p] : [];
    }
    if (w.request.gpu > 0) return this.gpuPools;
    // GPU nodes are kept for GPU work unless there is nowhere else (or the config allows it).
    if (this.cpuPools.length === 0) return this.gpuPools;
    return this.state.config.cpuWorkOnGpuNodes ? [...this.cpuPools, ...this.gpuPools] : this.cpuPools;
  }

  private admit(w: PendingWorkload, q: QueueState, pool: PoolIndex, node: NodeSlot, victims: RunSlot[]): void {
    const req = w.request;
    pool.adjust(node, req, -1);
    addInto(q.used, req);
    if (q.cohort) addInto(q.cohort.used, req);
    addInto(pool.used, req);
    if (!q.tier.cfg.useReserve) addInto(pool.lowerUsed, req);
    const run = this.runShare(w.tier, w.runId);
    addInto(run.used, req);
    run.share = dominantShare(run.used, this.clusterTotal);
    const borrowing =
      q.used.cpu > q.nominal.cpu + EPS ||
      q.used.memoryMb > q.nominal.memoryMb + EPS ||
      q.used.gpu > q.nominal.gpu + EPS ||
      q.used.gpuMemoryMb > q.nominal.gpuMemoryMb + EPS ||
      q.used.diskMb > q.nominal.diskMb + EPS;
    this.admissions.push({ workloadId: w.id, nodeId: node.info.id, preempts: victims.map((v) => v.w.id), borrowing });
  }

  // ---- preemption ----------------------------------------------------------------------

  private buildRunningIndex(): void {
    this.byNode = new Map();
    this.newestFirst = [...this.running].sort((a, b) => b.w.startedAt - a.w.startedAt);
    for (const s of this.newestFirst) {
      let list = this.byNode.get(s.node!);
      if (!list) this.byNode.set(s.node!, (list = []));
      list.push(s);
    }
  }

  /**
   * Whether `w` may evict `v`: never inside the minimum run time or while already evicting;
   * a lower priority in the same queue; in the same cohort a queue that is borrowing, when `w`
   * reclaims its own nominal quota or outranks it; elsewhere (or for reserve tiers) any lower
   * priority. `freed` is what this search already took per queue, so a lender stops being a
   * reclaim target once it is back at nominal.
   */
  private eligible(w: PendingWorkload, q: QueueState, withinNominal: boolean, v: RunSlot, freed: Map<QueueState, Resources>): boolean {
    if (v.taken || v.w.evicting || !v.queue) return false;
    if (this.now - v.w.startedAt < this.state.config.minRunTimeMs) return false;
    const wPriority = w.priority ?? 0;
    if (v.queue === q) return v.priority < wPriority;
    const lower = v.rank < q.tier.cfg.rank || (v.rank === q.tier.cfg.rank && v.priority < wPriority);
    if (lower && q.tier.cfg.useReserve) return true;
    if (q.cohort && v.queue.cohort === q.cohort) {
      if (!(withinNominal || lower)) return false;
      const took = freed.get(v.queue);
      const u = v.queue.used;
      const n = v.queue.nominal;
      const t = took ?? ZERO;
      return (
        u.cpu - t.cpu > n.cpu + EPS ||
        u.memoryMb - t.memoryMb > n.memoryMb + EPS ||
        u.gpu - t.gpu > n.gpu + EPS ||
        u.gpuMemoryMb - t.gpuMemoryMb > n.gpuMemoryMb + EPS ||
        u.diskMb - t.diskMb > n.diskMb + EPS
      );
    }
    return lower;
  }

  private tryPreempt(w: PendingWorkload, q: QueueState, pools: PoolIndex[], roomy?: { pool: PoolIndex; node: NodeSlot }): boolean {
    const req = w.request;
    const cacheKey = `${q.cfg.name}\u0000${w.priority ?? 0}`;
    const failed = this.failedPreempt.get(cacheKey);
    if (failed?.some((f) => fits(f, req))) return false;
    if (!this.byNode) this.buildRunningIndex();
    const withinNominal = fitsUnder(q.used, req, q.nominal);
    const freed = new Map<QueueState, Resources>();
    const take = (v: RunSlot, chosen: RunSlot[]) => {
      chosen.push(v);
      if (v.queue) {
        let f = freed.get(v.queue);
        if (!f) freed.set(v.queue, (f = zero()));
        addInto(f, v.w.request);
      }
    };

    // Phase 1: the node needing the fewest evictions (then the newest ones, then the tightest
    // fit), taking victims newest first and only those that free a resource still short.
    const rank = q.tier.cfg.rank;
    const priority = w.priority ?? 0;
    let best: { pool: PoolIndex; node: NodeSlot; victims: RunSlot[]; slack: number; oldest: number } | undefined;
    if (roomy) best = { ...roomy, victims: [], slack: 0, oldest: Infinity };
    // Fast path: the newest eligible workload that alone makes room on its node is the best
    // one-victim answer; scanning newest first finds it without visiting every node.
    if (!best) {
      const list = this.newestFirst!;
      const oldEnough = this.now - this.state.config.minRunTimeMs;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]!.w.startedAt > oldEnough)
          lo = mid + 1; // lo <= mid < hi <= length
        else hi = mid;
      }
      const free1 = zero();
      for (let i = lo; i < list.length; i++) {
        const v = list[i]!; // i < list.length; a plain loop on the preemption hot path
        const node = v.node!;
        if (v.taken || !node.schedulable || !pools.includes(v.pool!) || !mayUse(node, rank, priority)) continue;
        free1.cpu = node.free.cpu + v.w.request.cpu;
        free1.memoryMb = node.free.memoryMb + v.w.request.memoryMb;
        free1.gpu = node.free.gpu + v.w.request.gpu;
        free1.gpuMemoryMb = node.free.gpuMemoryMb + v.w.request.gpuMemoryMb;
        free1.diskMb = node.free.diskMb + v.w.request.diskMb;
        if (!fits(req, free1) || !this.eligible(w, q, withinNominal, v, freed)) continue;
        best = { pool: v.pool!, node, victims: [v], slack: 0, oldest: v.w.startedAt };
        break;
      }
    }
    const free = zero();
    search: for (const pool of best ? [] : pools) {
      for (const node of pool.nodes) {
        if (!fits(req, node.info.capacity) || !mayUse(node, rank, priority)) continue;
        free.cpu = node.free.cpu;
        free.memoryMb = node.free.memoryMb;
        free.gpu = node.free.gpu;
        free.gpuMemoryMb = node.free.gpuMemoryMb;
        free.diskMb = node.free.diskMb;
        const victims: RunSlot[] = [];
        if (!fits(req, free)) {
          freed.clear();
          const short = excess(zero(), req, free);
          for (const v of this.byNode!.get(node) ?? []) {
            if (!reduces(v.w.request, short) || !this.eligible(w, q, withinNominal, v, freed)) continue;
            take(v, victims);
            addInto(free, v.w.request);
            if (fits(req, free)) break;
            for (const k of KEYS) short[k] = Math.max(0, req[k] - free[k]);
          }
          if (!fits(req, free)) continue;
        }
        const slack = Math.min(free.gpu - req.gpu, free.cpu - req.cpu);
        const oldest = victims.at(-1)?.w.startedAt ?? Infinity;
        if (
          !best ||
          victims.length < best.victims.length ||
          (victims.length === best.victims.length && (oldest > best.oldest || (oldest === best.oldest && slack < best.slack)))
        ) {
          best = { pool, node, victims, slack, oldest };
          if (victims.length === 0) break search;
        }
      }
    }
    if (!best) return this.remember(cacheKey, req);

    // Phase 2: quota, cohort and reserve, freeing what still exceeds, newest first anywhere.
    const chosen = [...best.victims];
    freed.clear();
    for (const v of chosen) {
      if (!v.queue) continue;
      let f = freed.get(v.queue);
      if (!f) freed.set(v.queue, (f = zero()));
      addInto(f, v.w.request);
    }
    const deficits = this.deficits(req, q, best.pool, chosen);
    if (anyPositive(deficits.queue) || anyPositive(deficits.cohort) || anyPositive(deficits.reserve)) {
      const inSet = new Set(chosen);
      for (const v of this.newestFirst!) {
        if (inSet.has(v) || !this.eligible(w, q, withinNominal, v, freed)) continue;
        const helpsQueue = v.queue === q && reduces(v.w.request, deficits.queue);
        const helpsCohort = !!q.cohort && v.queue?.cohort === q.cohort && reduces(v.w.request, deficits.cohort);
        const helpsReserve = v.pool === best.pool && !v.queue?.tier.cfg.useReserve && reduces(v.w.request, deficits.reserve);
        if (!helpsQueue && !helpsCohort && !helpsReserve) continue;
        take(v, chosen);
        inSet.add(v);
        if (v.queue === q) addInto(deficits.queue, v.w.request, -1);
        if (q.cohort && v.queue?.cohort === q.cohort) addInto(deficits.cohort, v.w.request, -1);
        if (v.pool === best.pool && !v.queue?.tier.cfg.useReserve) addInto(deficits.reserve, v.w.request, -1);
        if (!anyPositive(deficits.queue) && !anyPositive(deficits.cohort) && !anyPositive(deficits.reserve)) break;
      }
      if (anyPositive(deficits.queue) || anyPositive(deficits.cohort) || anyPositive(deficits.reserve)) {
        return this.remember(cacheKey, req);
      }
    }

    // Prune: drop any victim not needed after all, oldest first, so the set stays small and new.
    if (chosen.length <= 64) {
      for (let i = chosen.length - 1; i >= 0; i--) {
        const without = chosen.filter((_, j) => j !== i);
        if (this.feasible(req, q, best.pool, best.node, without)) chosen.splice(i, 1);
      }
    }
    if (!this.feasible(req, q, best.pool, best.node, chosen)) return this.remember(cacheKey, req);

    for (const v of chosen) this.evict(v, w, q);
    this.admit(w, q, best.pool, best.node, chosen);
    this.failedPreempt.clear();
    return true;
  }

  private remember(key: string, req: Resources): false {
    const list = this.failedPreempt.get(key);
    if (!list) this.failedPreempt.set(key, [req]);
    else if (list.length < 32) list.push(req);
    return false;
  }

  private deficits(req: Resources, q: QueueState, pool: PoolIndex, victims: RunSlot[]) {
    const qUsed = copy(q.used);
    const cUsed = q.cohort ? copy(q.cohort.used) : zero();
    const rUsed = copy(pool.lowerUsed);
    for (const v of victims) {
      if (v.queue === q) addInto(qUsed, v.w.request, -1);
      if (q.cohort && v.queue?.cohort === q.cohort) addInto(cUsed, v.w.request, -1);
      if (v.pool === pool && !v.queue?.tier.cfg.useReserve) addInto(rUsed, v.w.request, -1);
    }
    return {
      queue: excess(qUsed, req, q.limit),
      cohort: q.cohort ? excess(cUsed, req, q.cohort.nominal) : zero(),
      reserve: q.tier.cfg.useReserve ? zero() : excess(rUsed, req, this.lowerCap.get(pool)!),
    };
  }

  private feasible(req: Resources, q: QueueState, pool: PoolIndex, node: NodeSlot, victims: RunSlot[]): boolean {
    const nodeFree = copy(node.free);
    for (const v of victims) if (v.node === node) addInto(nodeFree, v.w.request);
    if (!fits(req, nodeFree)) return false;
    const d = this.deficits(req, q, pool, victims);
    return !anyPositive(d.queue) && !anyPositive(d.cohort) && !anyPositive(d.reserve);
  }

  private evict(v: RunSlot, by: PendingWorkload, q: QueueState): void {
    v.taken = true;
    const r = v.w.request;
    if (v.node && v.pool) v.pool.adjust(v.node, r, 1);
    if (v.queue) {
      addInto(v.queue.used, r, -1);
      if (v.queue.cohort) addInto(v.queue.cohort.used, r, -1);
    }
    if (v.pool) {
      addInto(v.pool.used, r, -1);
      if (!v.queue?.tier.cfg.useReserve) addInto(v.pool.lowerUsed, r, -1);
    }
    if (v.run) {
      addInto(v.run.used, r, -1);
      v.run.share = dominantShare(v.run.used, this.clusterTotal);
    }
    const lower = v.rank < q.tier.cfg.rank || (v.rank === q.tier.cfg.rank && v.priority < (by.priority ?? 0));
    const n = (v.w.preemptions ?? 0) + 1;
    const { baseMs, maxMs } = this.state.config.backoff;
    this.preemptions.push({
      workloadId: v.w.id,
      nodeId: v.w.nodeId,
      byWorkloadId: by.id,
      reason: lower ? 'priority' : 'reclaim',
      message: lower
        ? `preempted by ${by.id} (${by.tier}, priority ${by.priority ?? 0}) of higher priority`
        : `preempted by ${by.id}: queue ${q.cfg.name} reclaims the quota lent to ${v.queue?.cfg.name}`,
      retryAt: this.now + Math.min(maxMs, baseMs * 2 ** (n - 1)),
      preemptions: n,
    });
  }
}

const KEYS = ['cpu', 'memoryMb', 'gpu', 'gpuMemoryMb', 'diskMb'] as const;
const ZERO: Resources = Object.freeze(zero());
