'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { StatusBadge } from '@/components/ui/status-badge';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { formatDateTime, timeAgo } from '@/components/display-format';
import { WORKER_KINDS } from '@/core/queues';

// Workers heartbeat every 5 s and are declared lost after 30 s (CRUCIBLE_WORKER_HEARTBEAT_MS, CRUCIBLE_WORKER_STALE_MS in core/settings.ts).
const LATE_MS = 15_000;

/** Worker kinds that claim jobs from the queue. */
const QUEUE_KINDS = new Set<string>([WORKER_KINDS.jobs, WORKER_KINDS.sandbox]);

export default function WorkersPage() {
  const trpc = useTRPC();
  const [showStopped, setShowStopped] = useState(false);
  const workers = useQuery({ ...trpc.workers.list.queryOptions(), refetchInterval: 5_000 });
  const rows = (workers.data ?? []).filter((w) => showStopped || w.status === 'running');
  return (
    <>
      <title>Workers · Crucible</title>
      <PageHeader
        title="Workers"
        subtitle="Worker processes registered with this control plane: their capacity, the jobs each holds the lease of now, and the last heartbeat."
        actions={
          <label className="flex items-center gap-1.5 text-slate-600">
            <input type="checkbox" checked={showStopped} onChange={(e) => setShowStopped(e.target.checked)} /> Show stopped and lost
          </label>
        }
      />
      {workers.isPending ? (
        <Loading label="Loading workers…" />
      ) : workers.isError ? (
        <ErrorNotice title="Could not load workers" error={workers.error} onRetry={() => workers.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={showStopped ? 'No worker has ever registered' : 'No running workers'}>
          Workers start with `npm start`; on other machines run `npm start -- --workers-only` with the same DATABASE_URL.
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass} aria-label="Workers">
            <thead>
              <tr>
                <th className={thClass}>Worker</th>
                <th className={thClass}>Kind</th>
                <th className={thClass}>Host / pid</th>
                <th className={thClass}>Status</th>
                <th className={thClass}>Capacity</th>
                <th className={thClass}>Running now</th>
                <th className={thClass}>Started</th>
                <th className={thClass}>Heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => {
                const late = w.status === 'running' && workers.dataUpdatedAt - new Date(w.heartbeatAt).getTime() > LATE_MS;
                const c = w.capacity;
                return (
                  <tr key={w.id} data-testid="worker-row">
                    <td className={`${tdClass} font-mono text-xs`}>{w.id}</td>
                    <td className={tdClass}>{w.kind}</td>
                    <td className={`${tdClass} text-slate-600`}>
                      {w.hostname} / {w.pid}
                    </td>
                    <td className={tdClass}>
                      <StatusBadge status={w.status} />
                    </td>
                    <td className={`${tdClass} text-xs tabular-nums text-slate-600`}>
                      {c.cpus} vCPU · {Math.round(c.memoryMb / 1024)} GB
                      {c.gpuCount > 0 && ` · ${c.gpuCount} GPU (${Math.round(c.gpuMemoryMb / 1024)} GB)`}
                    </td>
                    <td className={`${tdClass} text-xs`} data-testid="worker-jobs">
                      {w.jobs.length === 0 ? (
                        // only job and sandbox workers take jobs from the queue; the others have none to hold
                        <span className="text-slate-400">{QUEUE_KINDS.has(w.kind) ? 'idle' : '—'}</span>
                      ) : (
                        <ul className="space-y-0.5">
                          {w.jobs.map((j) => (
                            <li key={j.id} className="whitespace-nowrap" data-testid="worker-job">
                              <span className="font-mono">{j.queue}</span> #{j.id}
                              {j.runId && (
                                <>
                                  {' '}
                                  ·{' '}
                                  <Link className="text-accent hover:underline" href={`/runs/${j.runId}`}>
                                    run {j.runId.slice(0, 8)}
                                  </Link>
                                </>
                              )}
                              {j.startedAt && <span className="text-slate-500"> · for {timeAgo(j.startedAt).replace(/ ago$/, '')}</span>}
                              {j.attempts > 1 && <span className="text-amber-700"> · attempt {j.attempts}</span>}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td className={`${tdClass} text-slate-600`} title={formatDateTime(w.startedAt)}>
                      {timeAgo(w.startedAt)}
                    </td>
                    <td className={`${tdClass} ${late ? 'font-medium text-red-700' : 'text-slate-600'}`} title={formatDateTime(w.heartbeatAt)}>
                      {timeAgo(w.heartbeatAt)}
                      {late && ' (late)'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
