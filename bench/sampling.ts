import { parseArgs } from 'node:util';
import { Rng } from '@/core/random';
import { pick, type PickOptions } from '@/lib/policy/pick-token';

// `npm run bench -- sampling [--rows 200] [--json]`
//
// Microseconds to choose one token from a row of log-probabilities: ours (lib/policy/pick-token.ts,
// O(V)) next to the sort-everything choice it replaced (below, unchanged), on the same rows and
// seeds, at the vocabularies of the byte model (256), Llama 2 / stories (32k) and Qwen2/3 (152k),
// for the settings runs use. Rows are peaked like a language model's (a few likely tokens, a long
// tail); the nucleus size of each setting is printed so the top-p figures can be read.

/** The choice before pick-token.ts: sort the whole vocabulary for every token. The reference. */
function sortedPick(logprobs: Float32Array, o: PickOptions, rng: Rng): number {
  const V = logprobs.length;
  if (o.temperature === 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (logprobs[i]! > logprobs[best]!) best = i;
    return best;
  }
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logprobs[b]! - logprobs[a]! || a - b);
  const k = o.topK > 0 ? Math.min(o.topK, V) : V;
  const top = order.slice(0, k);
  const maxL = logprobs[top[0]!]! / o.temperature;
  const w = top.map((i) => Math.exp(logprobs[i]! / o.temperature - maxL));
  let total = w.reduce((a, b) => a + b, 0);
  let keep = top.length;
  if (o.topP < 1) {
    let acc = 0;
    for (let i = 0; i < top.length; i++) {
      acc += w[i]! / total;
      if (acc >= o.topP) {
        keep = i + 1;
        break;
      }
    }
    total = w.slice(0, keep).reduce((a, b) => a + b, 0);
  }
  let u = rng.next() * total;
  for (let i = 0; i < keep; i++) {
    u -= w[i]!;
    if (u < 0) return top[i]!;
  }
  return top[keep - 1]!;
}

/** A language-model-like row: a few likely tokens over a normal tail (about half the mass), normalised to log-probabilities. */
function lmRow(V: number, rng: Rng): Float32Array {
  const logits = new Float64Array(V);
  for (let i = 0; i < V; i++) {
    // Box-Muller normal, scaled so a handful of tokens dominate
    const z = Math.sqrt(-2 * Math.log(rng.next() + 1e-12)) * Math.cos(2 * Math.PI * rng.next());
    logits[i] = 1.5 * z;
  }
  // a head of likely tokens (a model that has an opinion), at random ids
  for (let h = 0; h < 8; h++) logits[Math.floor(rng.next() * V)] = 10 + h + Math.log(V / 256);
  let max = -Infinity;
  for (const l of logits) max = Math.max(max, l);
  let sum = 0;
  for (const l of logits) sum += Math.exp(l - max);
  const lse = max + Math.log(sum);
  return Float32Array.from(logits, (l) => l - lse);
}

function nucleus(lp: Float32Array, o: PickOptions): number {
  const w = Array.from(lp, (l) => Math.exp(l / o.temperature)).sort((a, b) => b - a);
  const top = o.topK > 0 ? w.slice(0, o.topK) : w;
  const total = top.reduce((a, b) => a + b, 0);
  let acc = 0;
  for (let i = 0; i < top.length; i++) if ((acc += top[i]! / total) >= o.topP) return i + 1;
  return top.length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { rows: { type: 'string' }, json: { type: 'boolean' } } });
  const rows = Number(values.rows ?? 200);
  const settings: [string, PickOptions][] = [
    ['T=1', { temperature: 1, topK: 0, topP: 1 }],
    ['T=0.7', { temperature: 0.7, topK: 0, topP: 1 }],
    ['top-k 50', { temperature: 1, topK: 50, topP: 1 }],
    ['top-p 0.9', { temperature: 1, topK: 0, topP: 0.9 }],
    ['T=0.7 top-p 0.95', { temperature: 0.7, topK: 0, topP: 0.95 }],
    ['greedy', { temperature: 0, topK: 0, topP: 1 }],
  ];
  const out: Record<string, unknown>[] = [];
  for (const V of [256, 32_000, 151_936]) {
    const gen = new Rng(V);
    const n = V > 100_000 ? Math.max(5, Math.floor(rows / 10)) : V > 10_000 ? Math.max(10, Math.floor(rows / 4)) : rows;
    const data = Array.from({ length: n }, () => lmRow(V, gen));
    for (const [label, o] of settings) {
      const time = (f: typeof pick) => {
        const rng = new Rng(1);
        const us: number[] = [];
        for (const row of data) {
          const t0 = performance.now();
          f(row, o, rng);
          us.push((performance.now() - t0) * 1000);
        }
        return median(us);
      };
      time(pick); // warm both up on the same rows
      time(sortedPick);
      const ours = time(pick);
      const ref = time(sortedPick);
      const r = {
        vocab: V,
        setting: label,
        rows: n,
        nucleus: o.temperature === 0 ? 1 : o.topP >= 1 ? o.topK || V : median(data.slice(0, 5).map((row) => nucleus(row, o))),
        oursUs: ours,
        sortedUs: ref,
        speedup: ref / ours,
      };
      out.push(r);
      if (!values.json)
        console.log(
          `V=${String(V).padStart(6)}  ${label.padEnd(17)} nucleus ${String(r.nucleus).padStart(6)}  ours ${ours.toFixed(1).padStart(8)} µs  sorted ${ref.toFixed(1).padStart(9)} µs  ${r.speedup.toFixed(1)}×`,
        );
    }
  }
  if (values.json) console.log(JSON.stringify(out, null, 2));
  return 0;
}
