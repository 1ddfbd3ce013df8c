import type { Rng } from '@/core/random';

/** What a token choice needs of the sampling options. */
export type PickOptions = { temperature: number; topK: number; topP: number };

// Choosing a token in O(V): a Qwen-size vocabulary (152k) is sorted by no one. The full
// distribution is one pass for the weights and one inverse-CDF walk in index order; top-k keeps
// a heap of k; top-p looks only at the tokens above a weight threshold that provably holds the
// nucleus, and sorts just those. The result has the same distribution as sorting everything.

/** Weights reused across calls, grown to the largest vocabulary seen: no allocation per token. */
let weights = new Float64Array(0);
const scratch = (n: number) => (weights.length >= n ? weights : (weights = new Float64Array(n)));

/** Choose a token from a row of log-probabilities with temperature, top-k and top-p. */
export function pick(logprobs: Float32Array, o: PickOptions, rng: Rng): number {
  const V = logprobs.length;
  let best = 0;
  for (let i = 1; i < V; i++) if (logprobs[i]! > logprobs[best]!) best = i;
  if (o.temperature === 0) return best;
  const invT = 1 / o.temperature;
  const max = logprobs[best]!;
  const k = o.topK > 0 ? Math.min(o.topK, V) : V;
  if (k === V && o.topP >= 1) {
    const w = scratch(V);
    let total = 0;
    for (let i = 0; i < V; i++) total += w[i] = Math.exp((logprobs[i]! - max) * invT);
    let u = rng.next() * total;
    for (let i = 0; i < V; i++) {
      u -= w[i]!;
      if (u < 0) return i;
    }
    return best; // rounding left u at 0: the likeliest token
  }
  // top-k: the k likeliest (a heap of k); top-p: the nucleus among them, found by selection, not by sorting
  const w = scratch(V);
  let cand: Int32Array;
  let total = 0;
  if (k < V) {
    cand = Int32Array.from(topKIndices(logprobs, k));
    for (let j = 0; j < cand.length; j++) total += w[cand[j]!] = Math.exp((logprobs[cand[j]!]! - max) * invT);
  } else {
    for (let i = 0; i < V; i++) total += w[i] = Math.exp((logprobs[i]! - max) * invT);
    cand = o.topP < 1 ? aboveThreshold(w, V, total, o.topP) : Int32Array.from({ length: V }, (_, i) => i);
  }
  const keep = o.topP < 1 ? nucleusPrefix(w, cand, o.topP * total) : cand.length;
  let kept = 0;
  for (let j = 0; j < keep; j++) kept += w[cand[j]!]!;
  // the kept set is fixed: any walking order draws from it in proportion to the weights
  let u = rng.next() * kept;
  for (let j = 0; j < keep; j++) {
    u -= w[cand[j]!]!;
    if (u < 0) return cand[j]!;
  }
  return best;
}

/**
 * The tokens whose weight is at least a threshold τ chosen so they hold at least `p` of the
 * mass: the nucleus lies among them, and for a model with an opinion they are few, so the
 * selection below runs on a handful instead of the vocabulary. τ starts high and drops 16× a
 * pass; τ = (1 - p)·total / V always holds (everything below it weighs less than V·τ).
 */
function aboveThreshold(w: Float64Array, V: number, total: number, p: number): Int32Array {
  const floor = ((1 - p) * total) / V;
  for (let tau = total / 64; ; tau = Math.max(tau / 16, floor)) {
    let mass = 0;
    let n = 0;
    for (let i = 0; i < V; i++)
      if (w[i]! >= tau) {
        mass += w[i]!;
        n++;
      }
    if (mass >= p * total || tau <= floor) {
      const out = new Int32Array(n);
      for (let i = 0, j = 0; i < V; i++) if (w[i]! >= tau) out[j++] = i;
      return out;
    }
  }
}

/**
 * Rearranges `idx` so its first m entries are the nucleus: the fewest likeliest tokens whose
 * weight reaches `target` (ties by lower index first, as a stable sort would take them), and
 * returns m. A weighted quickselect: expected O(n), where sorting would be O(n log n).
 */
function nucleusPrefix(w: Float64Array, idx: Int32Array, target: number): number {
  let lo = 0;
  let hi = idx.length;
  let need = target;
  const swap = (a: number, b: number) => {
    const t = idx[a]!;
    idx[a] = idx[b]!;
    idx[b] = t;
  };
  for (;;) {
    if (hi - lo <= 32) {
      const part = Array.from(idx.subarray(lo, hi)).sort((a, b) => w[b]! - w[a]! || a - b);
      idx.set(part, lo);
      let acc = 0;
      for (let j = 0; j < part.length; j++) if ((acc += w[part[j]!]!) >= need) return lo + j + 1;
      return hi; // rounding: everything left
    }
    // median of three as the pivot (no draw from the sampler's RNG)
    const a = w[idx[lo]!]!;
    const b = w[idx[(lo + hi) >> 1]!]!;
    const c = w[idx[hi - 1]!]!;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    // three-way partition: [> pivot | = pivot | < pivot]
    let gt = lo;
    let i = lo;
    let lt = hi;
    let massGt = 0;
    let massEq = 0;
    while (i < lt) {
      const x = w[idx[i]!]!;
      if (x > pivot) {
        massGt += x;
        swap(gt++, i++);
      } else if (x < pivot) swap(i, --lt);
      else {
        massEq += x;
        i++;
      }
    }
    if (massGt >= need && gt - lo > 0) {
      hi = gt;
      continue;
    }
    need -= massGt;
    if (massEq >= need) {
      // ties at the boundary: lower indices first
      const eq = Array.from(idx.subarray(gt, lt)).sort((x, y) => x - y);
      idx.set(eq, gt);
      return gt + Math.min(eq.length, Math.max(1, Math.ceil(need / pivot - 1e-12)));
    }
    need -= massEq;
    lo = lt;
  }
}

/** The k largest entries' indices (any order), by a min-heap of k: O(V log k). */
export function topKIndices(l: Float32Array, k: number): number[] {
  const heap: number[] = [];
  // the heap's root is its smallest entry; ties broken so a lower index ranks higher, as in a stable sort
  const less = (a: number, b: number) => l[a]! < l[b]! || (l[a]! === l[b]! && a > b);
  const down = (i: number) => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let m = i;
      if (left < heap.length && less(heap[left]!, heap[m]!)) m = left;
      if (right < heap.length && less(heap[right]!, heap[m]!)) m = right;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = 0; i < l.length; i++) {
    if (heap.length < k) {
      heap.push(i);
      for (let c = heap.length - 1; c > 0;) {
        const p = (c - 1) >> 1;
        if (!less(heap[c]!, heap[p]!)) break;
        [heap[c], heap[p]] = [heap[p]!, heap[c]!];
        c = p;
      }
    } else if (less(heap[0]!, i)) {
      heap[0] = i;
      down(0);
    }
  }
  return heap;
}
