'use client';
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../display-format';
import { EmptyState } from '../ui/states';
import { metricHelpFor, palette, runCharts, type ChartSpec, type MetricSampleView, type SectionView } from './metric-groups';
import { overlayArm } from './arm-overlay';

export type { MetricSampleView } from './metric-groups';

/** One metric's chart: its series as lines (legend when more than one), an optional shaded band. */
export function MetricChart({ chart }: { chart: ChartSpec }) {
  const { points, series } = chart;
  const main = series[0];
  const last = [...points].reverse().find((p) => main && typeof p[main.key] === 'number');
  const many = chart.legend || series.filter((s) => !s.dashed).length > 1;
  return (
    <figure className="rounded border border-slate-200 p-2" data-testid="metric-chart" data-metric={chart.name}>
      <figcaption className="mb-1 text-xs">
        <div className="flex items-baseline justify-between gap-2">
          <span className="font-semibold text-slate-700">{chart.name}</span>
          {last && main && !many && (
            <span className="tabular-nums text-slate-500">
              last {formatNumber(last[main.key] as number)} @ {last.x}
            </span>
          )}
        </div>
        {metricHelpFor(chart.name) && <div className="text-[11px] text-slate-400">{metricHelpFor(chart.name)}</div>}
      </figcaption>
      <div className={many ? 'h-48' : 'h-40'}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} tick={{ fontSize: 10 }} allowDecimals={false} />
            <YAxis tick={{ fontSize: 10 }} domain={['auto', 'auto']} tickFormatter={(v: number) => formatNumber(v, 2)} />
            <Tooltip
              formatter={(v, key) => [
                Array.isArray(v) ? v.map((x) => formatNumber(Number(x), 3)).join(' – ') : formatNumber(Number(v), 4),
                key === 'band' ? '±1 std' : key,
              ]}
              labelFormatter={(l) => `step ${l}`}
            />
            {many && <Legend wrapperStyle={{ fontSize: 11 }} />}
            {chart.band && <Area dataKey="band" name="±1 std" stroke="none" fill="#c7d2fe" fillOpacity={0.6} isAnimationActive={false} legendType="none" />}
            {series.map((s, i) => (
              <Line
                key={s.key}
                type="monotone"
                dataKey={s.key}
                name={s.label}
                stroke={s.dashed ? '#94a3b8' : (s.color ?? palette[i % palette.length])}
                strokeDasharray={s.dashed ? '4 3' : undefined}
                strokeWidth={s.dashed ? 1 : 1.5}
                dot={!s.dashed && points.length < 30}
                connectNulls
                isAnimationActive={false}
                legendType={s.dashed ? 'none' : 'line'}
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Sections of charts, each a titled grid. */
export function ChartSections({ sections }: { sections: SectionView[] }) {
  return (
    <div className="space-y-4">
      {sections.map((s) => (
        <div key={s.title} data-testid="metric-section" aria-label={s.title} role="group">
          <h3 className="mb-2 text-xs font-semibold text-slate-500">{s.title}</h3>
          <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
            {s.charts.map((c) => (
              <MetricChart key={c.name} chart={c} />
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}

/**
 * A run's metric charts, grouped for RL: reward and pass@1 first, then the update, time, health,
 * components. With `arm` (the other arm of a run launched with a control arm), its reward and
 * pass-rate curves are drawn on the same charts.
 */
export function MetricCharts({
  samples,
  arm,
}: {
  samples: MetricSampleView[];
  arm?: { samples: MetricSampleView[]; labels: { self: string; other: string } };
}) {
  if (samples.length === 0) {
    return <EmptyState title="No metrics yet">Charts appear once the run reports its first iteration.</EmptyState>;
  }
  const sections = runCharts(samples);
  return <ChartSections sections={arm ? overlayArm(sections, arm.samples, arm.labels) : sections} />;
}
