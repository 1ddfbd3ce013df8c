'use client';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../display-format';
import { EmptyState } from '../ui/states';

export type MetricSampleView = { name: string; step: number | null; value: number; at: Date | string };

// The metrics an operator reads first, in this order; others follow alphabetically.
const preferred = ['reward_mean', 'reward/mean', 'pass_rate', 'kl', 'loss', 'entropy'];

function order(a: string, b: string) {
  const ia = preferred.indexOf(a);
  const ib = preferred.indexOf(b);
  if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
  return a.localeCompare(b);
}

/** One small line chart per metric name, x = step (or sample order when a sample has no step). */
export function MetricCharts({ samples }: { samples: MetricSampleView[] }) {
  if (samples.length === 0) {
    return <EmptyState title="No metrics yet">Charts appear once the run reports its first iteration.</EmptyState>;
  }
  const byName = new Map<string, { x: number; value: number }[]>();
  for (const s of samples) {
    const list = byName.get(s.name) ?? [];
    list.push({ x: s.step ?? list.length, value: s.value });
    byName.set(s.name, list);
  }
  const names = [...byName.keys()].sort(order);
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
      {names.map((name) => {
        const points = byName.get(name)!.sort((a, b) => a.x - b.x);
        const last = points[points.length - 1];
        return (
          <figure key={name} className="rounded border border-slate-200 p-2" data-testid="metric-chart">
            <figcaption className="mb-1 flex items-baseline justify-between text-xs">
              <span className="font-semibold text-slate-700">{name}</span>
              <span className="tabular-nums text-slate-500">
                last {formatNumber(last.value)} @ {last.x}
              </span>
            </figcaption>
            <div className="h-40">
              <ResponsiveContainer width="100%" height="100%">
                <LineChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
                  <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
                  <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} tick={{ fontSize: 10 }} allowDecimals={false} />
                  <YAxis tick={{ fontSize: 10 }} domain={['auto', 'auto']} tickFormatter={(v: number) => formatNumber(v, 2)} />
                  <Tooltip formatter={(v) => formatNumber(Number(v), 4)} labelFormatter={(l) => `step ${l}`} />
                  <Line type="monotone" dataKey="value" stroke="#4f46e5" strokeWidth={1.5} dot={points.length < 30} isAnimationActive={false} />
                </LineChart>
              </ResponsiveContainer>
            </div>
          </figure>
        );
      })}
    </div>
  );
}
