import { and, asc, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { metricSamples } from '@/db/schema';

/**
 * The charts' "generated tokens" x-axis: for each run, the policy tokens generated up to and
 * including each step. Counted from `generated_tokens` (one sample per iteration); runs
 * written before that metric existed fall back to response_length × turns_per_episode ×
 * episodes per iteration, the same count as a mean. Read from every sample, never the
 * downsampled series (a sum needs every step).
 */

export type TokenSample = { runId: string; name: string; step: number; value: number };

export const TOKEN_METRICS = ['generated_tokens', 'response_length', 'turns_per_episode'] as const;

/** Pure: cumulative [step, tokens] pairs per run, ascending steps; a run with no count is left out. */
export function cumulativeTokens(samples: TokenSample[], episodesPerIteration: ReadonlyMap<string, number>): Map<string, [number, number][]> {
  const perRun = new Map<string, Map<number, Partial<Record<(typeof TOKEN_METRICS)[number], number>>>>();
  for (const s of samples) {
    const steps = perRun.get(s.runId) ?? new Map();
    perRun.set(s.runId, steps);
    const at = steps.get(s.step) ?? {};
    at[s.name as (typeof TOKEN_METRICS)[number]] = s.value;
    steps.set(s.step, at);
  }
  const out = new Map<string, [number, number][]>();
  for (const [runId, steps] of perRun) {
    const exact = [...steps.values()].some((v) => v.generated_tokens !== undefined);
    const per = episodesPerIteration.get(runId) ?? 0;
    let total = 0;
    const pairs: [number, number][] = [];
    for (const step of [...steps.keys()].sort((a, b) => a - b)) {
      const v = steps.get(step)!;
      const n = exact
        ? v.generated_tokens
        : v.response_length !== undefined && v.turns_per_episode !== undefined
          ? v.response_length * v.turns_per_episode * per
          : undefined;
      if (n === undefined || !Number.isFinite(n)) continue;
      total += Math.round(n);
      pairs.push([step, total]);
    }
    if (pairs.length) out.set(runId, pairs);
  }
  return out;
}

export async function runTokens(db: Db, episodesPerIteration: ReadonlyMap<string, number>): Promise<Map<string, [number, number][]>> {
  const ids = [...episodesPerIteration.keys()];
  if (!ids.length) return new Map();
  const rows = await db
    .select({ runId: metricSamples.runId, name: metricSamples.name, step: metricSamples.step, value: metricSamples.value })
    .from(metricSamples)
    .where(and(inArray(metricSamples.runId, ids), inArray(metricSamples.name, [...TOKEN_METRICS])))
    .orderBy(asc(metricSamples.step));
  // a sample without a step is not an iteration's
  const samples = rows.flatMap((r) => (r.runId !== null && r.step !== null ? [{ ...r, runId: r.runId, step: r.step }] : []));
  return cumulativeTokens(samples, episodesPerIteration);
}
