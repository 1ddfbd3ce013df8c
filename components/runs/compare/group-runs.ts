import { type ChartPoint, type ChartSpec, type SectionView } from '../metric-groups';
import { groupColors } from '../run-colors';
import { configDiff, flattenConfig, rankConfigFields } from './config-diff';

/**
 * The compare page's "group by": runs grouped by the value of one config field (e.g.
 * `learningRate`), each group drawn as the mean of its runs with a band from their minimum to
 * their maximum, as W&B's grouped runs are. Pure, so it is unit-tested (group-runs.unit.test.ts).
 */

export type GroupableRun = { id: string; name: string; config: unknown };
export type RunGroup = { key: string; value: string; runIds: string[]; color: string; label: string };

/** Fields worth grouping by: the config paths whose value is not the same for every run, learning rate, algorithm, model and suite first. */
export const groupableFields = (runs: GroupableRun[], skip?: (path: string) => boolean): string[] =>
  rankConfigFields(
    configDiff(
      runs.map((r) => r.config),
      skip,
    ).map((r) => r.path),
  );

const asNumber = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/** Runs by their value of `field` (a dotted config path; absent is "—"), groups ordered by value (numbers numerically). */
export function groupRuns(runs: GroupableRun[], field: string): RunGroup[] {
  const byValue = new Map<string, string[]>();
  for (const r of runs) {
    const v = flattenConfig(r.config)[field] ?? '—';
    byValue.set(v, [...(byValue.get(v) ?? []), r.id]);
  }
  const values = [...byValue.keys()].sort((a, b) => {
    const x = asNumber(a);
    const y = asNumber(b);
    return x != null && y != null ? x - y : a.localeCompare(b);
  });
  // a group's colour hangs on its field and value, not on which other groups there are
  const colors = groupColors(field, values);
  return values.map((value) => {
    const runIds = byValue.get(value)!;
    return {
      key: `group:${value}`,
      value,
      runIds,
      color: colors.get(value)!,
      label: `${field} = ${value} (${runIds.length} run${runIds.length === 1 ? '' : 's'})`,
    };
  });
}

/**
 * A series' value at `x`: its sample there, or the straight line between its neighbours (runs
 * downsampled on the server keep different steps); undefined outside its first..last step.
 */
export function valueAt(points: [number, number][], x: number): number | undefined {
  if (!points.length || x < points[0]![0] || x > points.at(-1)![0]) return undefined;
  let lo = 0;
  let hi = points.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]![0] <= x) lo = mid;
    else hi = mid;
  }
  const [x0, y0] = points[lo]!;
  const [x1, y1] = points[hi]!;
  if (x0 === x) return y0;
  if (x1 === x) return y1;
  return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/** One chart's runs (series keyed by run id) as one mean line and a min – max band per group. */
export function groupChart(chart: ChartSpec, groups: RunGroup[]): ChartSpec {
  const seriesOf = (runId: string): [number, number][] =>
    chart.points.flatMap((p) => (typeof p[runId] === 'number' && Number.isFinite(p[runId]) ? [[p.x, p[runId]] as [number, number]] : []));
  const points = new Map<number, ChartPoint>(chart.points.map((p) => [p.x, { x: p.x }]));
  const series: ChartSpec['series'] = [];
  const bands: NonNullable<ChartSpec['bands']> = [];
  const times: NonNullable<ChartSpec['times']> = {};
  for (const g of groups) {
    const members = g.runIds.map(seriesOf).filter((s) => s.length > 0);
    if (!members.length) continue;
    const bandKey = `${g.key}:range`;
    for (const p of points.values()) {
      const vs = members.map((m) => valueAt(m, p.x)).filter((v): v is number => v !== undefined);
      if (!vs.length) continue;
      p[g.key] = vs.reduce((a, b) => a + b, 0) / vs.length;
      if (vs.length > 1) p[bandKey] = [Math.min(...vs), Math.max(...vs)];
    }
    series.push({ key: g.key, label: g.label, color: g.color });
    if (members.length > 1) bands.push({ key: bandKey, of: g.key, color: g.color, label: `${g.label}: min – max` });
    // a time axis puts a group on the clock of its first run that has one
    const clock = g.runIds.find((id) => chart.times?.[id]);
    if (clock) times[g.key] = chart.times![clock]!;
  }
  return {
    name: chart.name,
    help: `mean of each group's runs; band: their min – max`,
    series,
    bands,
    legend: true,
    points: [...points.values()].filter((p) => Object.keys(p).length > 1).sort((a, b) => a.x - b.x),
    times,
    ...(chart.downsampled ? { downsampled: true } : {}),
  };
}

/** Every chart of a comparison grouped (compareCharts' sections in, the same layout out). */
export const groupedSections = (sections: SectionView[], groups: RunGroup[]): SectionView[] =>
  sections
    .map((s) => ({ title: s.title, charts: s.charts.map((c) => groupChart(c, groups)).filter((c) => c.series.length > 0) }))
    .filter((s) => s.charts.length);
