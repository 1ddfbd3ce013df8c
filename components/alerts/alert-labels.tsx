import type { AlertLabels } from '@/core/alerts';

/** Labels other than the ones shown in their own columns, as `key=value` chips. */
export function LabelChips({ labels, hide = ['alertname', 'severity', 'run_name'] }: { labels: AlertLabels; hide?: string[] }) {
  const shown = Object.entries(labels).filter(([k]) => !hide.includes(k));
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map(([k, v]) => (
        <span key={k} className="rounded bg-slate-100 px-1.5 font-mono text-xs text-slate-700" title={`${k}=${v}`}>
          {k}={v.length > 14 ? `${v.slice(0, 8)}…` : v}
        </span>
      ))}
    </span>
  );
}

export const severityClass = (s: string) =>
  s === 'critical' ? 'bg-red-100 text-red-800' : s === 'warning' ? 'bg-amber-100 text-amber-800' : 'bg-slate-100 text-slate-700';
