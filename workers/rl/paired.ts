import { and, asc, eq, inArray } from 'drizzle-orm';
import type { RlMetric } from '@/core/metrics';
import type { Db } from '@/db/client';
import { episodes, metricSamples, rewards, runs, tasks } from '@/db/schema';
import { Rng } from '@/core/random';

/**
 * A run against its control arm (same config, seed and v0; learning rate 0), episode by
 * episode. Both arms sample the same task with the same seed in each slot (iteration,
 * group, sample), so a slot is a matched pair whose only difference is the update: the
 * paired tests below need no assumption about how hard the tasks are.
 */

export type Pair = {
  iteration: number;
  group: number;
  sample: number;
  task: string;
  main: { solved: boolean; reward: number };
  control: { solved: boolean; reward: number };
};

/** log Γ(x), Lanczos (g = 7, 9 terms): ~15 significant digits for x > 0. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** P(X ≥ k) for X ~ Binomial(n, 1/2), exact (summed in log space, so n in the thousands is fine). */
export function binomialUpperTail(k: number, n: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  const lf = (m: number) => logGamma(m + 1);
  let p = 0;
  for (let i = k; i <= n; i++) p += Math.exp(lf(n) - lf(i) - lf(n - i) - n * Math.LN2);
  return Math.min(1, p);
}

/**
 * Exact one-sided McNemar test: of the discordant pairs, `b` went the main arm's way and
 * `c` the control's; under "the update makes no difference" each is a fair coin, so
 * p = P(Bin(b + c, ½) ≥ b). No discordant pair at all (an arm that did not learn) gives p = 1.
 */
export function mcnemarOneSided(b: number, c: number): { b: number; c: number; p: number } {
  return { b, c, p: b + c === 0 ? 1 : binomialUpperTail(b, b + c) };
}

/**
 * One-sided paired sign-flip permutation test on per-cluster differences (here: per task,
 * main − control success rate): under "no difference" each difference's sign is a coin
 * flip. Exact over all 2^n flips up to n = 20, else 200k seeded random flips.
 */
export function signFlipTest(diffs: number[]): { n: number; p: number } {
  const d = diffs.filter((x) => Math.abs(x) > 1e-12);
  const n = d.length;
  if (!n) return { n, p: 1 };
  const observed = d.reduce((a, x) => a + x, 0);
  let hits = 0;
  let total = 0;
  const count = (flips: (i: number) => boolean) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += flips(i) ? -d[i]! : d[i]!;
    if (s >= observed - 1e-9) hits++;
    total++;
  };
  if (n <= 20) {
    for (let mask = 0; mask < 2 ** n; mask++) count((i) => ((mask >>> i) & 1) === 1);
  } else {
    const rng = new Rng(0x9e3779b9);
    for (let r = 0; r < 200_000; r++) count(() => rng.next() < 0.5);
  }
  return { n, p: hits / total };
}

/** Wald 95% interval of a paired difference of proportions, (b − c) / n, consistent with McNemar. */
export function pairedDifferenceCI(b: number, c: number, n: number): { gain: number; low: number; high: number } {
  if (!n) return { gain: 0, low: 0, high: 0 };
  const gain = (b - c) / n;
  const se = Math.sqrt(Math.max(0, b + c - (b - c) ** 2 / n)) / n;
  return { gain, low: gain - 1.959964 * se, high: gain + 1.959964 * se };
}

/** Finished iterations of a run: the learner step of iteration i commits currentIteration = i + 1. */
async function finishedIterations(db: Db, runId: string): Promise<number> {
  const [r] = await db.select({ it: runs.currentIteration }).from(runs).where(eq(runs.id, runId));
  if (!r) throw new Error(`no run ${runId}`);
  return r.it;
}

/**
 * The matched slots of the two arms from `fromIteration` on, over the iterations both have
 * finished. A slot is kept only if both arms scored it (an infrastructure failure on either
 * side drops the pair rather than counting as a failure). Success = the episode ended solved
 * (every test passed).
 */
export async function pairedOutcomes(
  db: Db,
  mainId: string,
  controlId: string,
  o: { fromIteration?: number } = {},
): Promise<{ pairs: Pair[]; iterations: number; dropped: number }> {
  const iterations = Math.min(await finishedIterations(db, mainId), await finishedIterations(db, controlId));
  const rows = await db
    .select({
      runId: episodes.runId,
      iteration: episodes.iteration,
      group: episodes.groupIndex,
      sample: episodes.sampleIndex,
      status: episodes.status,
      endReason: episodes.endReason,
      task: tasks.externalId,
      reward: rewards.value,
    })
    .from(episodes)
    .innerJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(inArray(episodes.runId, [mainId, controlId]))
    .orderBy(asc(episodes.iteration), asc(episodes.groupIndex), asc(episodes.sampleIndex));
  const from = o.fromIteration ?? 0;
  const key = (r: { iteration: number; group: number; sample: number }) => `${r.iteration}:${r.group}:${r.sample}`;
  const control = new Map(rows.filter((r) => r.runId === controlId).map((r) => [key(r), r]));
  const pairs: Pair[] = [];
  let dropped = 0;
  for (const m of rows) {
    if (m.runId !== mainId || m.iteration < from || m.iteration >= iterations) continue;
    const c = control.get(key(m));
    if (c && c.task !== m.task)
      throw new Error(
        `slot ${key(m)} sampled ${m.task} in run ${mainId} but ${c.task} in its control ${controlId}: the arms do not share the task order (different seed or curriculum?)`,
      );
    if (!c || m.status !== 'scored' || c.status !== 'scored' || m.reward == null || c.reward == null) {
      dropped++;
      continue;
    }
    pairs.push({
      iteration: m.iteration,
      group: m.group,
      sample: m.sample,
      task: m.task,
      main: { solved: m.endReason === 'solved', reward: m.reward },
      control: { solved: c.endReason === 'solved', reward: c.reward },
    });
  }
  return { pairs, iterations, dropped };
}

export type PairedReport = ReturnType<typeof comparePairs>;

/** Everything the learning test and bench print and assert, from the matched pairs. */
export function comparePairs(pairs: Pair[]) {
  const n = pairs.length;
  const b = pairs.filter((p) => p.main.solved && !p.control.solved).length;
  const c = pairs.filter((p) => !p.main.solved && p.control.solved).length;
  const rate = (f: (p: Pair) => boolean) => (n ? pairs.filter(f).length / n : 0);
  const byTask = new Map<string, Pair[]>();
  for (const p of pairs) byTask.set(p.task, [...(byTask.get(p.task) ?? []), p]);
  const perTask = [...byTask]
    .map(([task, ps]) => {
      const main = ps.filter((p) => p.main.solved).length / ps.length;
      const control = ps.filter((p) => p.control.solved).length / ps.length;
      return { task, episodes: ps.length, main, control, diff: main - control };
    })
    .sort((x, y) => y.diff - x.diff);
  const meanReward = (arm: 'main' | 'control') => (n ? pairs.reduce((a, p) => a + p[arm].reward, 0) / n : 0);
  return {
    pairs: n,
    solved: { main: rate((p) => p.main.solved), control: rate((p) => p.control.solved) },
    reward: { main: meanReward('main'), control: meanReward('control') },
    mcnemar: mcnemarOneSided(b, c),
    gain: pairedDifferenceCI(b, c, n),
    tasks: {
      improved: perTask.filter((t) => t.diff > 0).length,
      worse: perTask.filter((t) => t.diff < 0).length,
      signFlip: signFlipTest(perTask.map((t) => t.diff)),
      perTask,
    },
  };
}

/** Per iteration (step = iteration + 1; step 0 is v0): train reward and held-out pass@1 of a run. */
export async function curves(db: Db, runId: string) {
  const rows = await db
    .select({ name: metricSamples.name, step: metricSamples.step, value: metricSamples.value })
    .from(metricSamples)
    .where(and(eq(metricSamples.runId, runId), inArray(metricSamples.name, ['reward_mean', 'heldout_pass_at_1', 'pass_rate'] satisfies RlMetric[])))
    .orderBy(asc(metricSamples.step));
  const at = (name: RlMetric) => new Map(rows.filter((r) => r.name === name).map((r) => [r.step ?? 0, r.value]));
  return { reward: at('reward_mean'), heldout: at('heldout_pass_at_1'), passRate: at('pass_rate') };
}
