import { addInto, copy, fits, zero } from './resources';
import type { Resources } from '@/core/resources';
import type { NodeInfo } from './types';

/** A live node during one scheduling pass. `free` may go negative while evictions finish. */
export interface NodeSlot {
  info: NodeInfo;
  pool: string;
  free: Resources;
  /** Accepts new work (alive and not cordoned). */
  schedulable: boolean;
  /** Held for an aged workload: only work that outranks it may be placed here. */
  hold?: { rank: number; priority: number; workloadId: string };
}

/** Whether work of (rank, priority) may use `slot` despite a hold. */
export function mayUse(slot: NodeSlot, rank: number, priority: number): boolean {
  const h = slot.hold;
  return !h || rank > h.rank || (rank === h.rank && priority > h.priority);
}

/** One pool's nodes, sorted by (free GPUs, free CPUs) ascending for best-fit lookup. */
export class PoolIndex {
  readonly capacity = zero();
  /** Used by every tier, and by tiers that may not touch the reserve. */
  readonly used = zero();
  readonly lowerUsed = zero();
  hasGpu = false;
  private sorted: NodeSlot[] = [];

  constructor(readonly name: string) {}

  addNode(slot: NodeSlot): void {
    addInto(this.capacity, slot.info.capacity);
    if (slot.info.capacity.gpu > 0) this.hasGpu = true;
    if (slot.schedulable) this.sorted.push(slot);
  }

  finish(): void {
    this.sorted.sort((a, b) => a.free.gpu - b.free.gpu || a.free.cpu - b.free.cpu);
  }

  get nodes(): readonly NodeSlot[] {
    return this.sorted;
  }

  /** First index whose (gpu, cpu) is >= the given key. */
  private lowerBound(gpu: number, cpu: number): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const f = this.sorted[mid]!.free; // lo <= mid < hi <= length
      if (f.gpu < gpu || (f.gpu === gpu && f.cpu < cpu)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Best fit: the node with the fewest free GPUs, then CPUs, that still fits the request,
   * so big holes stay whole for big workloads.
   */
  bestFit(req: Resources, rank = Infinity, priority = 0): NodeSlot | undefined {
    const a = this.sorted;
    for (let i = this.lowerBound(req.gpu, req.cpu); i < a.length; i++) {
      const slot = a[i]!; // i < a.length; a plain loop, not a slice, on the scheduler's hot path
      if (fits(req, slot.free) && mayUse(slot, rank, priority)) return slot;
    }
    return undefined;
  }

  /** Change a node's free capacity by `sign * r`, keeping the order. */
  adjust(slot: NodeSlot, r: Resources, sign: number): void {
    if (!slot.schedulable) {
      addInto(slot.free, r, sign);
      return;
    }
    const i = this.indexOf(slot);
    this.sorted.splice(i, 1);
    addInto(slot.free, r, sign);
    this.sorted.splice(this.lowerBound(slot.free.gpu, slot.free.cpu), 0, slot);
  }

  private indexOf(slot: NodeSlot): number {
    for (let i = this.lowerBound(slot.free.gpu, slot.free.cpu); i < this.sorted.length; i++) {
      if (this.sorted[i] === slot) return i;
    }
    throw new Error(`node ${slot.info.id} missing from pool index ${this.name}`);
  }
}

export function poolOf(node: NodeInfo): string {
  return node.pool ?? (node.capacity.gpu > 0 ? 'gpu' : 'cpu');
}

export function newSlot(info: NodeInfo, schedulable: boolean): NodeSlot {
  return { info, pool: poolOf(info), free: copy(info.capacity), schedulable };
}
