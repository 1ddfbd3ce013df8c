'use client';
import { errorMessage } from '../api-error';
import { formatDateTime, timeAgo } from '../display-format';
import { Button } from '../ui/button';
import { StatusBadge } from '../ui/status-badge';
import { EmptyState } from '../ui/states';

export type RunEventView = {
  id: number;
  at: Date | string;
  type: string;
  fromStatus: string | null;
  toStatus: string | null;
  actor: string | null;
  message: string | null;
};

/** The older pages of a long run's events (runs.events is paged): whether there are more, and fetching the next. */
export type OlderEvents = {
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  /** pages loaded so far; the "all shown" note only matters once there was more than one */
  pages: number;
  load: () => void;
};

/**
 * The run's events newest first (the latest change is what an operator looks for), in the
 * server's order: loaded pages are concatenated as they come, never re-sorted, so an older
 * page lands below the newest one.
 */
export function EventTimeline({ events, older }: { events: RunEventView[]; older?: OlderEvents }) {
  if (events.length === 0) return <EmptyState title="No events yet">Status changes and milestones appear here.</EmptyState>;
  return (
    <div className="max-h-96 overflow-auto">
      <ol aria-label="Run events">
        {events.map((e) => (
          <li key={e.id} className="flex gap-3 border-l-2 border-slate-200 py-1.5 pl-3" data-testid="run-event">
            <div className="w-28 shrink-0 text-xs text-slate-500" title={formatDateTime(e.at)}>
              {timeAgo(e.at)}
            </div>
            <div className="min-w-0">
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="font-medium">{e.type}</span>
                {e.fromStatus && <StatusBadge status={e.fromStatus} />}
                {e.fromStatus && e.toStatus && <span className="text-slate-400">→</span>}
                {e.toStatus && <StatusBadge status={e.toStatus} />}
                {e.actor && <span className="text-xs text-slate-500">by {e.actor}</span>}
              </div>
              {e.message && (
                <p className="text-slate-600 wrap-break-word" data-testid="run-event-message">
                  {e.message}
                </p>
              )}
            </div>
          </li>
        ))}
      </ol>
      {older?.hasMore ? (
        <div className="mt-2 flex flex-wrap items-center gap-2 pl-3">
          <Button onClick={older.load} disabled={older.loading}>
            {older.loading ? 'Loading older events…' : 'Load older events'}
          </Button>
          {!!older.error && (
            <span role="alert" className="text-red-700">
              Could not load older events: {errorMessage(older.error)}
            </span>
          )}
        </div>
      ) : (
        older &&
        older.pages > 1 && (
          <p className="mt-2 pl-3 text-xs text-slate-500" data-testid="run-events-end">
            All {events.length} events shown.
          </p>
        )
      )}
    </div>
  );
}
