'use client';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { EmptyState } from '../ui/states';
import { controlClass } from '../ui/layout-parts';
import { metricHelpFor, palette, runCharts, type ChartSpec, type MetricSampleView, type SectionView } from './metric-groups';
import { overlayArm } from './arm-overlay';
import { availableXModes, chartView, rawColumns, X_LABELS, type ChartControls, type XContext, type XMode } from './charts/chart-view';
import { chartCsv, csvFileName } from './charts/csv';
import { formatSi } from './charts/ticks';
import { reuseUnchanged, type ChartCache } from './charts/stable-charts';
import { useInView } from '../ui/use-in-view';

export type { MetricSampleView } from './metric-groups';
export type { XContext } from './charts/chart-view';

/** The browser download of a chart's CSV. */
function downloadCsv(name: string, csv: string) {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = csvFileName(name);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

const iconButton = 'rounded px-1.5 py-0.5 text-[11px] text-slate-500 hover:bg-slate-100 hover:text-slate-800';

type PlotProps = { chart: ChartSpec; controls: ChartControls; hidden: ReadonlySet<string>; ctx: XContext };

/** The plot itself: lines (linear, never splines), the optional band, and axes from chart-view.ts. */
const Plot = memo(function Plot({ chart, controls, hidden, ctx }: { chart: ChartSpec; controls: ChartControls; hidden: ReadonlySet<string>; ctx: XContext }) {
  const view = useMemo(() => chartView(chart, controls, hidden, ctx, palette), [chart, controls, hidden, ctx]);
  if (view.rows.length === 0) return <p className="py-6 text-center text-xs text-slate-400">No points on this x-axis.</p>;
  const many = view.lines.filter((l) => !l.dashed && !l.faint).length;
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={view.rows} margin={{ top: 6, right: 14, bottom: 14, left: 2 }}>
        <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
        <XAxis
          dataKey="x"
          type="number"
          domain={view.x.domain}
          ticks={view.x.ticks}
          tickFormatter={view.x.format}
          interval={0}
          allowDataOverflow
          tick={{ fontSize: 10 }}
          height={30}
          label={{ value: view.xLabel, position: 'insideBottom', offset: -4, fontSize: 10, fill: '#64748b' }}
        />
        <YAxis
          type="number"
          scale={controls.logY ? 'log' : 'linear'}
          domain={view.y.domain}
          ticks={view.y.ticks}
          tickFormatter={view.y.format}
          interval={0}
          allowDataOverflow
          width={view.y.width}
          tick={{ fontSize: 10 }}
        />
        <Tooltip
          formatter={(v, key) => [
            Array.isArray(v) ? v.map((x) => formatSi(Number(x), 3)).join(' – ') : formatSi(Number(v), 4),
            key === 'band' ? '±1 std' : (view.lines.find((l) => l.key === key)?.label ?? view.bands.find((b) => b.key === key)?.label ?? key),
          ]}
          labelFormatter={(l) => `${view.xLabel} ${view.x.format(Number(l))}`}
        />
        {view.band && <Area dataKey="band" name="±1 std" type="linear" stroke="none" fill="#c7d2fe" fillOpacity={0.6} isAnimationActive={false} />}
        {view.bands.map((b) => (
          <Area key={b.key} dataKey={b.key} name={b.label} type="linear" stroke="none" fill={b.color} fillOpacity={0.15} isAnimationActive={false} />
        ))}
        {view.lines.map((l) => (
          <Line
            key={l.key}
            type="linear"
            dataKey={l.key}
            name={l.label}
            stroke={l.color}
            strokeOpacity={l.faint ? 0.25 : 1}
            strokeDasharray={l.dashed ? '4 3' : undefined}
            strokeWidth={l.dashed || l.faint ? 1 : 1.5}
            dot={!l.dashed && !l.faint && many <= 1 && view.rows.length < 30 ? { r: 2 } : false}
            connectNulls
            isAnimationActive={false}
          />
        ))}
      </ComposedChart>
    </ResponsiveContainer>
  );
});

/**
 * The plot, drawn only once its panel comes near the viewport (as W&B does): until then a
 * placeholder of the same size. A panel scrolled away keeps what it drew and is not redrawn
 * while out of view; it catches up when it comes back.
 */
function LazyPlot(props: PlotProps) {
  const [ref, inView] = useInView<HTMLDivElement>();
  // The props of the last render in view: out of view, the memoised Plot gets the same objects and skips.
  const shown = useRef<PlotProps | null>(null);
  // eslint-disable-next-line react-hooks/refs -- render-time cache by design: out of view, the drawn props are kept
  if (inView) shown.current = props;
  // eslint-disable-next-line react-hooks/refs
  const drawn = shown.current;
  return (
    <div ref={ref} className="h-full" data-testid={drawn ? undefined : 'chart-placeholder'}>
      {drawn && <Plot {...drawn} />}
    </div>
  );
}

/**
 * Every sample of the charts, for the CSV of a downsampled chart (the page fetches with
 * `full: true` and lays the charts out as it does for display).
 */
export type FullCharts = () => Promise<SectionView[]>;

/**
 * One metric's panel: title, legend (click to hide a series), expand, CSV, and the plot.
 * Memoised: a live page's poll that left this chart's data alone does not redraw it.
 */
export const MetricChart = memo(function MetricChart({
  chart,
  controls,
  ctx,
  full,
}: {
  chart: ChartSpec;
  controls: ChartControls;
  ctx: XContext;
  full?: FullCharts;
}) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [expanded, setExpanded] = useState(false);
  const { points, series } = chart;
  const main = series[0];
  const last = [...points].reverse().find((p) => main && typeof p[main.key] === 'number');
  const legendSeries = series.filter((s) => !s.dashed);
  const many = chart.legend || legendSeries.length > 1;
  const hiddenByLog = useMemo(() => (controls.logY ? chartView(chart, controls, hidden, ctx, palette).hiddenByLog : 0), [chart, controls, hidden, ctx]);
  const toggle = (key: string) => {
    const next = new Set(hidden);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setHidden(next);
  };
  const [csvState, setCsvState] = useState<'idle' | 'loading' | 'failed'>('idle');
  // A downsampled chart's CSV holds every sample (fetched now); if that fails, or there is no
  // way to fetch it, the file is the downsampled one and its name says so.
  const csv = async () => {
    let source = chart;
    if (chart.downsampled && full) {
      setCsvState('loading');
      try {
        source = (await full()).flatMap((s) => s.charts).find((c) => c.name === chart.name) ?? chart;
        setCsvState('idle');
      } catch {
        setCsvState('failed');
      }
    }
    const rows = chartView(source, { ...controls, smoothing: 0, logY: false }, new Set(), ctx, palette).rows;
    downloadCsv(source.downsampled ? `${chart.name}-downsampled` : chart.name, chartCsv(X_LABELS[controls.x], rawColumns(source, new Set()), rows));
  };
  const csvTitle = !chart.downsampled
    ? 'Download CSV'
    : full
      ? 'Download CSV (every sample, fetched now; the chart is downsampled)'
      : 'Download CSV (downsampled, as drawn)';
  useEffect(() => {
    if (!expanded) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setExpanded(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [expanded]);

  const header = (
    <figcaption className="mb-1 text-xs">
      <div className="flex items-baseline justify-between gap-2">
        <span className="truncate font-semibold text-slate-700" title={chart.name}>
          {chart.name}
        </span>
        <span className="flex shrink-0 items-baseline gap-1">
          {last && main && !many && (
            <span className="tabular-nums text-slate-500">
              last {formatSi(last[main.key] as number, 3)} @ {last.x}
            </span>
          )}
          {chart.downsampled && (
            <span
              className="text-[10px] uppercase tracking-wide text-slate-400"
              data-testid="chart-downsampled"
              title="Downsampled on the server: each bucket of steps keeps its first, last, minimum and maximum, so spikes and dips are drawn; the CSV has every sample"
            >
              sampled
            </span>
          )}
          <button
            type="button"
            className={iconButton}
            onClick={() => void csv()}
            disabled={csvState === 'loading'}
            aria-label={`Download ${chart.name} as CSV`}
            data-testid="chart-csv"
            data-downsampled={chart.downsampled ? 'true' : undefined}
            title={csvState === 'failed' ? 'Could not fetch every sample; the file was the downsampled series' : csvTitle}
          >
            {csvState === 'loading' ? 'CSV…' : 'CSV'}
          </button>
          <button
            type="button"
            className={iconButton}
            onClick={() => setExpanded(!expanded)}
            aria-label={expanded ? `Close ${chart.name}` : `Expand ${chart.name}`}
            data-testid="expand-chart"
            title={expanded ? 'Close (Esc)' : 'Expand'}
          >
            {expanded ? '✕' : '⤢'}
          </button>
        </span>
      </div>
      {(chart.help ?? metricHelpFor(chart.name)) && <div className="text-[11px] text-slate-400">{chart.help ?? metricHelpFor(chart.name)}</div>}
      {many && (
        <ul className="mt-1 flex flex-wrap gap-x-2 gap-y-0.5" aria-label={`${chart.name} series`}>
          {legendSeries.map((s) => {
            const i = series.indexOf(s);
            const on = !hidden.has(s.key);
            return (
              <li key={s.key}>
                <button
                  type="button"
                  aria-pressed={on}
                  data-testid="legend-item"
                  onClick={() => toggle(s.key)}
                  title={on ? 'Click to hide' : 'Click to show'}
                  className={`flex items-center gap-1 rounded px-1 text-[11px] hover:bg-slate-100 ${on ? 'text-slate-700' : 'text-slate-400 line-through'}`}
                >
                  <span aria-hidden className="inline-block h-0.5 w-3" style={{ background: on ? (s.color ?? palette[i % palette.length]) : '#cbd5e1' }} />
                  {s.label}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {hiddenByLog > 0 && (
        <div className="text-[11px] text-amber-700" data-testid="log-hidden">
          {hiddenByLog} value{hiddenByLog === 1 ? '' : 's'} ≤ 0 not shown on a log scale
        </div>
      )}
    </figcaption>
  );

  return (
    <>
      <figure className="min-w-0 rounded border border-slate-200 p-2" data-testid="metric-chart" data-metric={chart.name}>
        {header}
        <div className={many ? 'h-48' : 'h-44'}>
          <LazyPlot chart={chart} controls={controls} hidden={hidden} ctx={ctx} />
        </div>
      </figure>
      {expanded && (
        <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40 p-6" onClick={() => setExpanded(false)}>
          <figure
            role="dialog"
            aria-modal="true"
            aria-label={`${chart.name} (expanded)`}
            data-testid="expanded-chart"
            className="flex h-[80vh] w-full max-w-6xl flex-col rounded bg-white p-4 shadow-xl"
            onClick={(e) => e.stopPropagation()}
          >
            {header}
            <div className="min-h-0 flex-1">
              <Plot chart={chart} controls={controls} hidden={hidden} ctx={ctx} />
            </div>
          </figure>
        </div>
      )}
    </>
  );
});

/** Smoothing, log y and the x-axis for every panel below, as in W&B's workspace settings. */
function ChartControlsBar({ controls, setControls, modes }: { controls: ChartControls; setControls: (c: ChartControls) => void; modes: XMode[] }) {
  return (
    <div role="toolbar" aria-label="Chart controls" data-testid="chart-controls" className="flex flex-wrap items-center gap-x-5 gap-y-2 text-xs text-slate-600">
      <label className="flex items-center gap-2">
        Smoothing
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={controls.smoothing}
          aria-label="Smoothing"
          onChange={(e) => setControls({ ...controls, smoothing: Number(e.target.value) })}
          className="w-32 accent-indigo-600"
        />
        <span className="w-8 tabular-nums" data-testid="smoothing-value">
          {controls.smoothing.toFixed(2)}
        </span>
      </label>
      <label className="flex items-center gap-1.5">
        <input type="checkbox" checked={controls.logY} onChange={(e) => setControls({ ...controls, logY: e.target.checked })} aria-label="Log scale y" />
        Log y
      </label>
      <label className="flex items-center gap-2">
        x-axis
        <select
          className={`${controlClass} py-0.5 text-xs`}
          value={controls.x}
          aria-label="X axis"
          onChange={(e) => setControls({ ...controls, x: e.target.value as XMode })}
        >
          {modes.map((m) => (
            <option key={m} value={m}>
              {X_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

const initialControls: ChartControls = { smoothing: 0, logY: false, x: 'iteration' };

/** Sections of charts, each a titled grid, under one controls bar. */
const noContext: XContext = {};

export function ChartSections({ sections: laidOut, ctx = noContext, full }: { sections: SectionView[]; ctx?: XContext; full?: FullCharts }) {
  const [controls, setControls] = useState(initialControls);
  // Charts whose content did not change keep their objects, so their memoised panels skip.
  const cache = useRef<ChartCache>(new Map());
  const sections = useMemo(() => {
    // eslint-disable-next-line react-hooks/refs -- a cache across renders, read and replaced only when the layout changes
    const r = reuseUnchanged(laidOut, cache.current);
    // eslint-disable-next-line react-hooks/refs
    cache.current = r.cache;
    return r.sections;
  }, [laidOut]);
  const modes = useMemo(
    () =>
      availableXModes(
        sections.flatMap((s) => s.charts),
        ctx,
      ),
    [sections, ctx],
  );
  const effective = useMemo(() => (modes.includes(controls.x) ? controls : { ...controls, x: 'iteration' as const }), [modes, controls]);
  return (
    <div className="space-y-4">
      <ChartControlsBar controls={effective} setControls={setControls} modes={modes} />
      {sections.map((s) => (
        <div key={s.title} data-testid="metric-section" aria-label={s.title} role="group">
          <h3 className="mb-2 text-xs font-semibold text-slate-500">{s.title}</h3>
          <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
            {s.charts.map((c) => (
              <MetricChart key={c.name} chart={c} controls={effective} ctx={ctx} full={full} />
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
  ctx,
  downsampled,
  full,
  withheld,
}: {
  samples: MetricSampleView[];
  /** the run's reward-derived data is withheld from this reviewer (blind review) */
  withheld?: boolean;
  arm?: ArmSamples;
  ctx?: XContext;
  /** metric names the server downsampled */
  downsampled?: ReadonlySet<string>;
  full?: FullCharts;
}) {
  const sections = useMemo(() => runSections(samples, arm, downsampled), [samples, arm, downsampled]);
  if (samples.length === 0 && withheld) {
    return (
      <EmptyState title="Metrics hidden during blind review">
        This run has blind review items without a verdict, so its reward-derived metrics are hidden from reviewers until they are decided.
      </EmptyState>
    );
  }
  if (samples.length === 0) {
    return <EmptyState title="No metrics yet">Charts appear once the run reports its first iteration.</EmptyState>;
  }
  return <ChartSections sections={sections} ctx={ctx} full={full} />;
}

export type ArmSamples = { samples: MetricSampleView[]; labels: { self: string; other: string } };

/** The run page's chart layout (own charts, the other arm overlaid), for display and for the full-data CSV. */
export function runSections(samples: MetricSampleView[], arm?: ArmSamples, downsampled?: ReadonlySet<string>): SectionView[] {
  const own = runCharts(samples, downsampled);
  return arm ? overlayArm(own, arm.samples, arm.labels) : own;
}
