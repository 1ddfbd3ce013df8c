import { at } from './must';

/**
 * The project's one seeded PRNG (xoshiro128**, its state spread from the seed by splitmix32),
 * so whatever draws from it replays exactly from a seed (Math.random cannot be seeded):
 * policy initialisation and sampling, task order and minibatch shuffles in the RL loop, the
 * scheduler simulator, Monte Carlo tests. In core/ so every layer can import it.
 */
export class Rng {
  private s = new Uint32Array(4);
  private spare: number | undefined;

  constructor(seed: number) {
    // splitmix32 to spread the seed over the state.
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    if (this.s.every((v) => v === 0)) this.s[0] = 1;
  }

  /** Uniform in [0, 1). */
  next(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result / 4294967296;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    if (this.spare !== undefined) {
      const v = this.spare;
      this.spare = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** A child generator, e.g. one per batch row, so rows replay independently. */
  fork(salt: number): Rng {
    return new Rng((Math.floor(this.next() * 4294967296) ^ Math.imul(salt + 1, 0x27d4eb2d)) >>> 0);
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Exponential with the given mean (waiting times). */
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

  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    return at(items, Math.floor(this.next() * items.length), 'an item to pick (the list is empty)');
  }
}

/** The generator as a plain `() => number` in [0, 1), for code that takes a source function. */
export function prng(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
