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

/** The colours of the segmented bar's kinds of work (fill, and the empty track under it). */
const SEGMENT_STYLE = {
  training: { fill: 'bg-accent', track: 'bg-slate-200' },
  heldout: { fill: 'bg-amber-500', track: 'bg-amber-100' },
} as const;

export type BarSegment = {
  key: string;
  kind: 'training' | 'heldout';
  title: string;
  done: number;
  total: number;
  state: 'done' | 'running' | 'pending';
  weight: number;
};

/**
 * A progress bar in segments, each as wide as the work it holds and filled by its own k / N
 * (a run's training iterations and its held-out evaluations: progress-segments.ts). One
 * `progressbar` for the whole; each segment names itself in its title.
 */
export function SegmentedProgressBar({ segments, percent, label }: { segments: BarSegment[]; percent: number; label: string }) {
  return (
    <div className="flex min-w-32 items-center gap-2">
      <div
        className="flex h-2 flex-1 gap-px overflow-hidden rounded"
        role="progressbar"
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-label={`${percent}% of the run's work`}
        data-testid="segmented-progress"
      >
        {segments.map((s) => {
          const style = SEGMENT_STYLE[s.kind];
          const pct = s.state === 'done' ? 100 : s.total > 0 ? Math.min(100, (s.done / s.total) * 100) : 0;
          return (
            <div
              key={s.key}
              className={`relative h-full min-w-[2px] ${style.track} ${s.state === 'running' ? 'ring-1 ring-inset ring-slate-500' : ''}`}
              style={{ flexGrow: s.weight, flexBasis: 0 }}
              title={s.title}
              aria-label={s.title}
              data-testid="progress-segment"
              data-kind={s.kind}
              data-state={s.state}
              data-done={s.done}
              data-total={s.total}
            >
              <div className={`h-full ${style.fill}`} style={{ width: `${pct}%` }} />
            </div>
          );
        })}
      </div>
      <span className="w-36 text-right text-xs tabular-nums text-slate-600">{label}</span>
    </div>
  );
}

/** What the segmented bar's colours mean. */
export function SegmentLegend() {
  return (
    <span className="inline-flex items-center gap-3 text-[11px] text-slate-500">
      <span className="inline-flex items-center gap-1">
        <span aria-hidden className={`inline-block h-2 w-3 rounded-sm ${SEGMENT_STYLE.training.fill}`} />
        training (episodes)
      </span>
      <span className="inline-flex items-center gap-1">
        <span aria-hidden className={`inline-block h-2 w-3 rounded-sm ${SEGMENT_STYLE.heldout.fill}`} />
        held-out evaluation (tasks)
      </span>
    </span>
  );
}
