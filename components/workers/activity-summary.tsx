import { formatDateTime } from '@/components/display-format';

export type ActivityTotals = { busySandboxes: number; runningJobs: number; activeRuns: number };

/**
 * The three "now" figures /resources and /workers both show, from the same server snapshot
 * (server/workers/activity.ts), so the two pages read the same numbers.
 */
export function ActivitySummary({ totals, at }: { totals: ActivityTotals; at: Date | string }) {
  const items: [string, number, string, string][] = [
    ['Busy sandboxes', totals.busySandboxes, 'activity-busy-sandboxes', 'sandboxes running an episode or command now'],
    ['Running jobs', totals.runningJobs, 'activity-running-jobs', 'jobs a worker holds the lease of now'],
    ['Active runs', totals.activeRuns, 'activity-active-runs', 'runs queued, running or paused'],
  ];
  return (
    <section aria-label="Activity now" className="mb-4 flex flex-wrap items-stretch gap-3">
      {items.map(([label, value, testId, hint]) => (
        <div key={label} className="min-w-36 rounded border border-slate-200 bg-white px-3 py-2" title={hint}>
          <div className="text-xs text-slate-500">{label}</div>
          <div className="text-xl font-semibold tabular-nums text-slate-900" data-testid={testId}>
            {value}
          </div>
        </div>
      ))}
      <p className="self-end text-xs text-slate-500" title="read live from the jobs, sandboxes and runs tables">
        as of {formatDateTime(at)}
      </p>
    </section>
  );
}
