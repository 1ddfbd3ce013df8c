export function ProgressBar({ done, total, label, wideLabel }: { done: number; total: number; label?: string; wideLabel?: boolean }) {
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div className="flex min-w-32 items-center gap-2" title={`${done} / ${total}`}>
      <div className="h-1.5 flex-1 overflow-hidden rounded bg-slate-200" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
        <div className="h-full bg-accent" style={{ width: `${pct}%` }} />
      </div>
      <span className={`${wideLabel ? 'w-36' : 'w-24'} text-right text-xs tabular-nums text-slate-600`}>{label ?? `${pct}%`}</span>
    </div>
  );
}
