'use client';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader } from '@/components/ui/layout-parts';
import { ActivitySummary } from '@/components/workers/activity-summary';
import { HostSection } from '@/components/workers/host-section';

export default function WorkersPage() {
  const trpc = useTRPC();
  const [showEnded, setShowEnded] = useState(false);
  // hosts the operator collapsed: kept here, so a refetch (or an error and recovery) does not open them again
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const workers = useQuery({ ...trpc.workers.list.queryOptions({ includeEnded: showEnded }), refetchInterval: 5_000, placeholderData: (prev) => prev });
  const data = workers.data;
  return (
    <>
      <title>Workers · Crucible</title>
      <PageHeader
        title="Workers"
        subtitle="Nodes, the worker processes on each (their own CPU and memory, the jobs each holds the lease of now) and, one click further, a worker's jobs and recent log lines."
        actions={
          <label className="flex items-center gap-1.5 text-slate-600">
            <input type="checkbox" checked={showEnded} onChange={(e) => setShowEnded(e.target.checked)} /> Show stopped and lost
          </label>
        }
      />
      {workers.isPending ? (
        <Loading label="Loading workers…" />
      ) : workers.isError ? (
        <ErrorNotice title="Could not load workers" error={workers.error} onRetry={() => workers.refetch()} />
      ) : (
        <>
          <ActivitySummary totals={data!.activity.totals} at={data!.activity.at} />
          {(data!.elsewhere.runningJobs > 0 || data!.elsewhere.busySandboxes > 0) && (
            <p className="mb-3 text-sm text-amber-800" data-testid="held-elsewhere">
              {data!.elsewhere.runningJobs} running job(s) and {data!.elsewhere.busySandboxes} busy sandbox(es) are held by workers not listed here
              {showEnded ? '' : ' (stopped or lost, until their lease expires: tick “Show stopped and lost”)'}.
            </p>
          )}
          {data!.hosts.length === 0 ? (
            <EmptyState title={showEnded ? 'No worker has ever registered' : 'No running workers'}>
              Workers start with `npm start`; on other machines run `npm start -- --workers-only` with the same DATABASE_URL.
            </EmptyState>
          ) : (
            data!.hosts.map((h) => (
              <HostSection
                key={h.hostname}
                host={h}
                fetchedAt={workers.dataUpdatedAt}
                open={!collapsed.has(h.hostname)}
                onToggle={(open) =>
                  setCollapsed((prev) => {
                    const next = new Set(prev);
                    if (open) next.delete(h.hostname);
                    else next.add(h.hostname);
                    return next;
                  })
                }
              />
            ))
          )}
        </>
      )}
    </>
  );
}
