import { RL_METRIC_SECTIONS as sections, RL_REWARD_SPREAD as rewardSpread, type RlMetric } from '@/core/metrics';
import { palette, runColors } from './run-colors';

/** Distinguishable line colours, cycled (components/runs/run-colors.ts). */
export { palette };

/**
 * How the RL metric samples are laid out on the run and compare pages: which charts exist,
 * in which section (core/metrics.ts), and which series each draws. Pure so it can be tested
 * without a browser.
 */

export type MetricSampleView = {
  runId?: string | null;
  name: string;
  step: number | null;
  value: number;
  /** when it was recorded: a Date, an ISO string, or epoch ms (what runs.compare sends: no per-sample Date to serialise) */
  at: Date | string | number;
  labels?: Record<string, string> | null;
};

/** A sample's name is `metric` (typed, so a misspelled metric name does not compile). */
const is = (name: string, metric: RlMetric) => name === metric;

/** Short explanations shown under a chart's title. */
const metricHelp: Partial<Record<RlMetric, string>> = {
  reward_mean: 'mean episode reward; band: ±1 std, dashed: min / max',
  solved_rate: 'agent episodes that resolved their task: every FAIL_TO_PASS and PASS_TO_PASS test passes',
  valid_tool_calls_per_turn: 'tool calls that ran (readable, an offered tool, valid arguments) per assistant message',
  heldout_pass_at_1: 'greedy pass@1 on held-out tasks (step 0: after the SFT warm start, before RL)',
  heldout_pass_at_1_before_sft: 'greedy pass@1 of the random initialisation, before the SFT warm start',
  heldout_pass_at_k: 'pass@k on held-out tasks',
  kl: 'KL to the reference policy',
  clip_fraction: 'share of tokens whose ratio was clipped',
  dual_clip_fraction: 'share of negative-advantage tokens capped by the dual clip',
  loss: 'mean over the optimizer steps; a gap is a non-finite (skipped) step',
  grad_norm: 'before clipping; a gap is a non-finite (skipped) step',
  skipped_updates: 'optimizer steps skipped for a non-finite loss or gradient (weights kept)',
  logprob_mismatch: 'mean |log π − log π_old| at the first step; ~0 unless stored logprobs disagree with training',
  kl_reward_penalty: 'KL penalty taken out of the reward, per turn (KL in reward)',
  response_length: 'generated tokens per turn',
  generated_tokens: 'policy tokens generated this iteration, all episodes (the "generated tokens" x-axis sums them)',
  sandbox_time_share: 'sandbox ms / (policy + sandbox ms)',
  infra_failed_rate: 'episodes lost to sandbox / env failures',
  zero_variance_group_share: 'groups whose rewards were all equal (no GRPO signal)',
  sandbox_failures: 'failed episodes per iteration, by status',
};

/** The explanation shown under the chart of `name`, if it has one. */
export const metricHelpFor = (name: string): string | undefined => metricHelp[name as RlMetric];

export type ChartPoint = { x: number; [series: string]: number | [number, number] | undefined };
export type SeriesSpec = { key: string; label: string; dashed?: boolean; color?: string };
export type ChartSpec = {
  name: string;
  series: SeriesSpec[];
  /** A shaded [low, high] range drawn under the lines, stored on each point under `band`. */
  band?: boolean;
  /**
   * More shaded ranges, each belonging to one series (`of`) and hidden with it, stored on each
   * point under `key` (the compare page's groups: min – max of a group's runs around its mean).
   */
  bands?: { key: string; of: string; color: string; label: string }[];
  /** The line under the title, where this chart is not drawn as the metric's usual one (grouped runs). */
  help?: string;
  /** Always show the legend (comparisons: which line is which run, even when only one has data). */
  legend?: boolean;
  points: ChartPoint[];
  /**
   * When each series' value at each x was recorded (epoch ms): series key → x → time, for a
   * time x-axis. Series drawn with another (band, min, max) use the `value` series' times.
   */
  times?: Record<string, Record<number, number>>;
  /**
   * The server sent this metric downsampled (at most `maxPoints` steps per series, each
   * bucket's first, last, min and max kept; server/runs/metric-downsample.ts): the chart says
   * so, and its CSV fetches every sample.
   */
  downsampled?: boolean;
};
export type SectionView = { title: string; charts: ChartSpec[] };

const labelText = (labels: Record<string, string> | null | undefined) => {
  const entries = Object.entries(labels ?? {});
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '';
};

export const epochMs = (at: Date | string | number) => (typeof at === 'number' ? at : at instanceof Date ? at.getTime() : Date.parse(at));

/** Record that series `key` had its value at `x` at `at` (the first sample of that step). */
function noteTime(times: Record<string, Record<number, number>>, key: string, x: number, at: Date | string | number) {
  const t = epochMs(at);
  if (!Number.isFinite(t)) return;
  const own = (times[key] ??= {});
  own[x] = Math.min(own[x] ?? t, t);
}

/**
 * The ±1 std band drawn around the mean, clipped to the range the rewards actually took at
 * that step (reward_min..reward_max), or to the reward's own range [0, 1] when those are not
 * recorded: a band past the rewards' range suggests values no episode had.
 */
export function rewardBand(mean: number, std: number, min?: number, max?: number): [number, number] {
  const lo = Math.max(mean - std, min ?? 0);
  const hi = Math.min(mean + std, max ?? 1);
  return [Math.min(lo, mean), Math.max(hi, mean)];
}

/** NaN/Infinity are stored as such (a skipped step's loss) but cannot be plotted: a gap. */
const plottable = (v: number) => (Number.isFinite(v) ? v : undefined);

/** x = step; samples without a step are numbered in arrival order. */
function byStep(samples: MetricSampleView[]): Map<number, MetricSampleView[]> {
  const out = new Map<number, MetricSampleView[]>();
  samples.forEach((s, i) => {
    const x = s.step ?? i;
    const list = out.get(x) ?? [];
    list.push(s);
    out.set(x, list);
  });
  return out;
}

const sortedPoints = (m: Map<number, ChartPoint>) => [...m.values()].sort((a, b) => a.x - b.x);

/**
 * One run's charts: reward with its spread, labelled metrics as one series per label set.
 * `downsampled`: the metric names the server downsampled.
 */
export function runCharts(samples: MetricSampleView[], downsampled: ReadonlySet<string> = new Set()): SectionView[] {
  const byName = new Map<string, MetricSampleView[]>();
  for (const s of samples) {
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  const chartOf = (name: string): ChartSpec | null => {
    const own = byName.get(name);
    if (!own?.length) return null;
    const labelled = own.some((s) => labelText(s.labels) !== '' && !is(name, 'heldout_pass_at_1'));
    const points = new Map<number, ChartPoint>();
    const series = new Map<string, SeriesSpec>();
    const times: Record<string, Record<number, number>> = {};
    for (const [x, list] of byStep(own)) {
      const p: ChartPoint = { x };
      for (const s of list) {
        const key = labelled ? labelText(s.labels) || 'value' : 'value';
        series.set(key, { key, label: labelled ? key : name });
        noteTime(times, key, x, s.at);
        // Several samples of one series at one step (a re-run step): the last one wins.
        p[key] = plottable(s.value);
      }
      points.set(x, p);
    }
    const spec: ChartSpec = { name, series: [...series.values()].sort((a, b) => a.key.localeCompare(b.key)), points: [], times };
    if (downsampled.has(name)) spec.downsampled = true;
    if (is(name, 'reward_mean')) {
      const spread = Object.fromEntries(rewardSpread.map((n) => [n, new Map((byName.get(n) ?? []).map((s) => [s.step ?? -1, s.value]))]));
      for (const p of points.values()) {
        const mean = p.value as number | undefined;
        const std = spread.reward_std!.get(p.x);
        const lo = spread.reward_min!.get(p.x);
        const hi = spread.reward_max!.get(p.x);
        if (mean !== undefined && std !== undefined && Number.isFinite(std)) p.band = rewardBand(mean, std, lo, hi);
        if (lo !== undefined) p.min = lo;
        if (hi !== undefined) p.max = hi;
      }
      if (spread.reward_std!.size) spec.band = true;
      if (spread.reward_min!.size) spec.series.push({ key: 'min', label: 'reward_min', dashed: true });
      if (spread.reward_max!.size) spec.series.push({ key: 'max', label: 'reward_max', dashed: true });
    }
    spec.points = sortedPoints(points);
    return spec;
  };
  const placed = new Set<string>([...sections.flatMap((s) => s.metrics), ...(byName.has('reward_mean' satisfies RlMetric) ? rewardSpread : [])]);
  const out: SectionView[] = sections
    .map((s) => ({ title: s.title, charts: s.metrics.map(chartOf).filter((c): c is ChartSpec => c !== null) }))
    .filter((s) => s.charts.length > 0);
  const rest = [...byName.keys()].filter((n) => !placed.has(n)).sort((a, b) => a.localeCompare(b));
  if (rest.length) out.push({ title: 'Other', charts: rest.map(chartOf).filter((c): c is ChartSpec => c !== null) });
  return out;
}

export type CompareRun = { id: string; name: string };

/**
 * Several runs' charts: one chart per metric, one series per run (keyed by run id, labelled
 * by run name). Labelled metrics are summed over their labels per step, so each run stays
 * one line (sandbox_failures becomes total failures). `colors`: each run's colour by id
 * (default: run-colors.ts's stable colours of the runs in this order).
 */
export function compareCharts(
  runsToCompare: CompareRun[],
  samples: MetricSampleView[],
  downsampled: ReadonlySet<string> = new Set(),
  colors: ReadonlyMap<string, string> = runColors(runsToCompare.map((r) => r.id)),
): SectionView[] {
  const names = new Set(samples.map((s) => s.name));
  // indexed once: filtering every sample per metric and run is slow for long runs
  const byRunName = new Map<string, MetricSampleView[]>();
  for (const s of samples) {
    const key = `${s.runId}\u0000${s.name}`;
    const list = byRunName.get(key);
    if (list) list.push(s);
    else byRunName.set(key, [s]);
  }
  const chartOf = (name: string): ChartSpec | null => {
    if (!names.has(name)) return null;
    const points = new Map<number, ChartPoint>();
    const present = new Set<string>();
    const times: Record<string, Record<number, number>> = {};
    for (const run of runsToCompare) {
      const own = byRunName.get(`${run.id}\u0000${name}`) ?? [];
      for (const [x, list] of byStep(own)) {
        const p = points.get(x) ?? { x };
        for (const s of list) noteTime(times, run.id, x, s.at);
        const labelled = list.some((s) => labelText(s.labels) !== '') && !is(name, 'heldout_pass_at_1');
        p[run.id] = plottable(labelled ? list.reduce((a, s) => a + s.value, 0) : list[list.length - 1]!.value);
        points.set(x, p);
        present.add(run.id);
      }
    }
    // The run's own colour (from its id, not its place), so it keeps it on every chart and grouping.
    const series = runsToCompare.flatMap((r) => (present.has(r.id) ? [{ key: r.id, label: r.name, color: colors.get(r.id) }] : []));
    return { name, series, legend: true, points: sortedPoints(points), times, ...(downsampled.has(name) ? { downsampled: true } : {}) };
  };
  const placed = new Set<string>(sections.flatMap((s) => s.metrics));
  const out: SectionView[] = sections
    .map((s) => ({ title: s.title, charts: s.metrics.map(chartOf).filter((c): c is ChartSpec => c !== null) }))
    .filter((s) => s.charts.length > 0);
  const rest = [...names].filter((n) => !placed.has(n)).sort((a, b) => a.localeCompare(b));
  if (rest.length) out.push({ title: 'Other', charts: rest.map(chartOf).filter((c): c is ChartSpec => c !== null) });
  return out;
}
