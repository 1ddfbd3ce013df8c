'use client';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

type Point = { name: string; labels: Record<string, string>; at: number; value: number };

/** A horizontal line at a fixed value (a node's memory total), drawn dashed with its label ("vm total 23.5 GB"). */
export type CapacityLine = { label: string; value: number };

/**
 * Round ticks from 0 that reach `max` (and so the capacity lines): a step of 1, 2 or 5 × 10^k
 * giving at most 5 intervals; whole steps for counts. Recharts' own nice ticks are lost once
 * a reference line extends the domain (it read "6.3, 12.7, 19, 25.4" for a 23.5 GB node).
 */
export function niceTicks(max: number, integer = false): number[] {
  if (!(max > 0)) return [0, 1];
  const base = 10 ** Math.floor(Math.log10(max / 5));
  let step = [1, 2, 5, 10].map((m) => m * base).find((x) => max / x <= 5)!;
  if (integer) step = Math.max(1, Math.ceil(step));
  const n = Math.ceil(max / step - 1e-9);
  return Array.from({ length: n + 1 }, (_, i) => +(i * step).toPrecision(12));
}

const colors = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];

/**
 * One line per label set of one metric (e.g. CPU per node), with a legend naming each and
 * the unit on the y axis. `capacity` draws reference lines the axis always reaches (the
 * memory chart's node totals). `sampleTimes`, when given, are the instants a sampler ran:
 * a series missing at one of them was 0 then (the queue-depth sampler writes no row for an
 * empty queue), so the line drops to 0 instead of ending or bridging the gap.
 */
export function SeriesChart({
  points,
  label,
  unit,
  format = (v) => v.toFixed(2),
  seriesName = (l) => Object.values(l).join(' / ') || 'value',
  capacity = [],
  sampleTimes,
  yMax,
  step = false,
  testId = 'resource-chart',
}: {
  points: Point[];
  label: string;
  /** The y axis's unit, shown beside it ("GB", "jobs", "%"). */
  unit: string;
  format?: (v: number) => string;
  seriesName?: (labels: Record<string, string>) => string;
  capacity?: CapacityLine[];
  sampleTimes?: number[];
  /** A fixed top of the y axis (1 for a 0..1 utilisation); otherwise it fits the data and the capacity lines. */
  yMax?: number;
  /** Draw steps (counts that jump between samples) instead of slopes. */
  step?: boolean;
  testId?: string;
}) {
  const keys = [...new Set(points.map((p) => seriesName(p.labels)))].sort();
  const zeros = () => (sampleTimes ? Object.fromEntries(keys.map((k) => [k, 0])) : {});
  const rows = new Map<number, Record<string, number>>();
  for (const t of sampleTimes ?? []) rows.set(t, { at: t, ...zeros() });
  for (const p of points) rows.set(p.at, { ...(rows.get(p.at) ?? { at: p.at, ...zeros() }), [seriesName(p.labels)]: p.value });
  const data = [...rows.values()].sort((a, b) => a.at! - b.at!);
  const dataMax = Math.max(0, ...points.map((p) => p.value), ...capacity.map((c) => c.value));
  const ticks = yMax === undefined ? niceTicks(dataMax, unit === 'jobs') : undefined;
  const span = data.length > 1 ? data[data.length - 1]!.at! - data[0]!.at! : 0;
  // Seconds when the window holds a few minutes (else every tick reads the same minute), the day when it spans days.
  const tick = (t: number) =>
    new Date(t).toLocaleString(
      [],
      span < 10 * 60_000
        ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
        : span > 36 * 3_600_000
          ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
          : { hour: '2-digit', minute: '2-digit' },
    );
  return (
    <figure data-testid={testId} aria-label={label} className="flex h-64 flex-col rounded border border-slate-200 bg-white p-2">
      <figcaption className="text-xs font-semibold text-slate-600">
        {label} <span className="font-normal text-slate-500">({unit})</span>
      </figcaption>
      {data.length === 0 ? (
        <p className="p-4 text-sm text-slate-500">No samples in this window yet.</p>
      ) : (
        <div className="min-h-0 flex-1">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={data} margin={{ top: 8, right: 12, bottom: 0, left: 4 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="at" type="number" domain={['dataMin', 'dataMax']} tickFormatter={tick} fontSize={10} minTickGap={24} />
              <YAxis
                fontSize={10}
                tickFormatter={format}
                width={52}
                allowDecimals={unit !== 'jobs'}
                domain={[0, yMax ?? ticks!.at(-1)!]}
                ticks={ticks}
                label={{ value: unit, angle: -90, position: 'insideLeft', fontSize: 10, fill: '#64748b', dy: 12 }}
              />
              <Tooltip labelFormatter={(t) => new Date(Number(t)).toLocaleString()} formatter={(v, name) => [format(Number(v)), name]} />
              <Legend wrapperStyle={{ fontSize: 11 }} iconSize={10} />
              {keys.map((k, i) => (
                <Line
                  key={k}
                  name={k}
                  dataKey={k}
                  type={step ? 'stepAfter' : 'linear'}
                  dot={false}
                  isAnimationActive={false}
                  stroke={colors[i % colors.length]}
                  connectNulls={false}
                />
              ))}
              {capacity.map((c) => (
                <ReferenceLine
                  key={c.label}
                  y={c.value}
                  stroke="#64748b"
                  strokeDasharray="6 3"
                  ifOverflow="extendDomain"
                  label={{ value: c.label, position: 'insideTopRight', fontSize: 10, fill: '#475569' }}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}
