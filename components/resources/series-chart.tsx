'use client';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

type Point = { name: string; labels: Record<string, string>; at: number; value: number };

/** One line per label set of one metric (e.g. CPU per node). */
export function SeriesChart({ points, label, format = (v) => v.toFixed(2) }: { points: Point[]; label: string; format?: (v: number) => string }) {
  const keyOf = (l: Record<string, string>) => Object.values(l).join('/') || 'value';
  const keys = [...new Set(points.map((p) => keyOf(p.labels)))];
  const rows = new Map<number, Record<string, number>>();
  for (const p of points) rows.set(p.at, { ...(rows.get(p.at) ?? { at: p.at }), [keyOf(p.labels)]: p.value });
  const data = [...rows.values()].sort((a, b) => a.at! - b.at!);
  const colors = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];
  return (
    <figure data-testid="resource-chart" aria-label={label} className="h-48 rounded border border-slate-200 bg-white p-2">
      <figcaption className="text-xs font-semibold text-slate-600">{label}</figcaption>
      {data.length === 0 ? (
        <p className="p-4 text-sm text-slate-500">No samples in this window yet.</p>
      ) : (
        <ResponsiveContainer width="100%" height="85%">
          <LineChart data={data}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis dataKey="at" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(t: number) => new Date(t).toLocaleTimeString()} fontSize={10} />
            <YAxis fontSize={10} tickFormatter={format} width={48} />
            <Tooltip labelFormatter={(t) => new Date(Number(t)).toLocaleString()} formatter={(v) => format(Number(v))} />
            {keys.map((k, i) => (
              <Line key={k} dataKey={k} dot={false} isAnimationActive={false} stroke={colors[i % colors.length]} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
