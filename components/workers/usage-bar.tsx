/** A thin horizontal bar of `value` out of `max` (clamped), amber above 80 %, for CPU and memory cells. */
export function UsageBar({ value, max, label }: { value: number | null; max: number | null; label: string }) {
  const frac = value === null || !max ? null : Math.min(1, Math.max(0, value / max));
  return (
    <span
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max ?? 0}
      aria-valuenow={value ?? 0}
      className="inline-block h-1.5 w-16 overflow-hidden rounded-full bg-slate-200 align-middle"
    >
      {frac !== null && <span className={`block h-full ${frac > 0.8 ? 'bg-amber-500' : 'bg-accent'}`} style={{ width: `${(frac * 100).toFixed(1)}%` }} />}
    </span>
  );
}
