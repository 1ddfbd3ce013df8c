/** Seeded PRNG (mulberry32) with the few distributions the simulator draws from. */
import { at } from '@/core/must';
export class Random {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }

  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Log-normal with the given median and shape σ (durations: mostly near the median, a long tail). */
  lognormal(median: number, sigma: number): number {
    const u = 1 - this.next();
    const v = this.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(sigma * z);
  }

  pick<T>(items: readonly T[]): T {
    return at(items, Math.floor(this.next() * items.length), 'an item to pick (the list is empty)');
  }
}
