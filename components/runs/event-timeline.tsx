'use client';
import { formatDateTime, timeAgo } from '../display-format';
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

export function EventTimeline({ events }: { events: RunEventView[] }) {
  if (events.length === 0) return <EmptyState title="No events yet">Status changes and milestones appear here.</EmptyState>;
  // Newest first: the latest change is what an operator looks for.
  const sorted = [...events].sort((a, b) => new Date(b.at).getTime() - new Date(a.at).getTime() || b.id - a.id);
  return (
    <ol className="max-h-96 space-y-0 overflow-auto" aria-label="Run events">
      {sorted.map((e) => (
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
            {e.message && <p className="text-slate-600">{e.message}</p>}
          </div>
        </li>
      ))}
    </ol>
  );
}
