'use client';
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RouterOutputs } from '@/components/trpc';
import { StatusBadge } from '@/components/ui/status-badge';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { formatDateTime, timeAgo } from '@/components/display-format';
import { WORKER_KINDS } from '@/core/queues';
import { formatCpuPercent, formatMemoryMb } from './units';
import { UsageBar } from './usage-bar';
import { CpuPartsBar } from '@/components/resources/cpu-parts-bar';

export type HostView = RouterOutputs['workers']['list']['hosts'][number];
type WorkerRow = HostView['workers'][number];

// Workers heartbeat every 5 s and are declared lost after 30 s (CRUCIBLE_WORKER_HEARTBEAT_MS, CRUCIBLE_WORKER_STALE_MS in core/settings.ts).
const LATE_MS = 15_000;

/** Worker kinds that claim jobs from the queue: the others have none to hold, so "idle" would mislead. */
const QUEUE_KINDS = new Set<string>([WORKER_KINDS.jobs, WORKER_KINDS.sandbox]);

/** The DOM id of a host's section, so /resources can link a node straight to its workers. */
export const hostAnchor = (hostname: string) => `host-${hostname.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * One node of the drill-down (node → workers → jobs): the host with its totals and the
 * node's own CPU and memory as the metrics worker sampled them, opening onto its workers,
 * each linked to its detail page.
 */
export function HostSection({
  host,
  fetchedAt,
  open = true,
  onToggle,
}: {
  host: HostView;
  fetchedAt: number;
  /** whether its workers are shown (held by the page, so a refetch that re-mounts the section keeps it) */
  open?: boolean;
  onToggle?: (open: boolean) => void;
}) {
  const cap = host.capacity;
  const n = host.node;
  return (
    <details
      open={open}
      onToggle={(e) => {
        if (e.currentTarget.open !== open) onToggle?.(e.currentTarget.open);
      }}
      id={hostAnchor(host.hostname)}
      data-testid="host-section"
      className="group mb-4 rounded border border-slate-200 bg-white"
    >
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-6 gap-y-2 px-3 py-2 hover:bg-slate-50" data-testid="host-summary">
        <span className="flex min-w-0 items-center gap-2">
          <span aria-hidden className="text-slate-400 transition-transform group-open:rotate-90">
            ▶
          </span>
          <span className="font-semibold text-slate-900" data-testid="host-name">
            {host.hostname}
          </span>
          {host.nodes.some((x) => x !== host.hostname) && <span className="text-xs text-slate-500">node {host.nodes.join(', ')}</span>}
        </span>
        <HostFact label="Capacity">
          {cap ? (
            <>
              {cap.cpus} vCPU · {formatMemoryMb(cap.memoryMb)}
              {cap.gpuCount > 0 && ` · ${cap.gpuCount} GPU`}
            </>
          ) : (
            '—'
          )}
        </HostFact>
        <HostFact label="Node CPU">
          {n.cpuUtilisation === null ? (
            <span className="text-slate-400">not sampled</span>
          ) : (
            <>
              {n.cpuParts ? (
                <CpuPartsBar node={host.hostname} parts={n.cpuParts} compact />
              ) : (
                <UsageBar value={n.cpuUtilisation} max={1} label={`${host.hostname} CPU`} />
              )}{' '}
              {(n.cpuUtilisation * 100).toFixed(0)}%
            </>
          )}
        </HostFact>
        <HostFact label="Node memory">
          {n.memoryUsedMb === null ? (
            <span className="text-slate-400">not sampled</span>
          ) : (
            <>
              <UsageBar value={n.memoryUsedMb} max={n.memoryTotalMb} label={`${host.hostname} memory`} /> {formatMemoryMb(n.memoryUsedMb)} /{' '}
              {formatMemoryMb(n.memoryTotalMb)}
            </>
          )}
        </HostFact>
        <HostFact label="Workers">
          <span data-testid="host-workers">{host.workersRunning}</span>
          {host.workersEnded > 0 && <span className="text-slate-500"> (+{host.workersEnded} ended)</span>}
        </HostFact>
        <HostFact label="Workers' CPU · RSS">
          {formatCpuPercent(host.cpuPercent)} · {formatMemoryMb(host.rssMb)}
        </HostFact>
        <HostFact label="Running jobs">
          <span data-testid="host-running-jobs">{host.runningJobs}</span>
        </HostFact>
        <HostFact label="Busy sandboxes">
          <span data-testid="host-busy-sandboxes">{host.busySandboxes}</span>
        </HostFact>
      </summary>
      <DataTable
        label={`Workers on ${host.hostname}`}
        wrapperClassName="overflow-x-auto border-t border-slate-200"
        rows={host.workers}
        rowKey={(w) => w.id}
        rowTestId="worker-row"
        columns={workerColumns(fetchedAt)}
      />
    </details>
  );
}

function HostFact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <span className="text-xs">
      <span className="block text-slate-500">{label}</span>
      <span className="whitespace-nowrap tabular-nums text-slate-800">{children}</span>
    </span>
  );
}

const late = (w: WorkerRow, fetchedAt: number) => w.status === 'running' && fetchedAt - new Date(w.heartbeatAt).getTime() > LATE_MS;

/** A host's workers table: each worker linked to its page, its own CPU and memory, the jobs it holds now. */
function workerColumns(fetchedAt: number): DataColumn<WorkerRow>[] {
  return [
    {
      key: 'worker',
      header: 'Worker',
      headerProps: { title: 'kind-host-pid-start' },
      className: 'whitespace-nowrap font-mono text-xs',
      cell: (w) => (
        <Link className="text-accent hover:underline" href={`/workers/${encodeURIComponent(w.id)}`} data-testid="worker-link">
          {w.id}
        </Link>
      ),
    },
    { key: 'status', header: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
    {
      key: 'cpu',
      header: 'CPU',
      headerProps: { title: 'this process, % of one core over the last heartbeat interval' },
      className: 'whitespace-nowrap text-xs tabular-nums',
      cellProps: () => ({ 'data-testid': 'worker-cpu' }),
      cell: (w) => (
        <>
          <UsageBar value={w.cpuPercent} max={100} label={`${w.id} CPU`} /> {formatCpuPercent(w.cpuPercent)}
        </>
      ),
    },
    {
      key: 'memory',
      header: 'Memory',
      headerProps: { title: 'resident memory of this process' },
      className: 'whitespace-nowrap text-xs tabular-nums',
      cellProps: () => ({ 'data-testid': 'worker-memory' }),
      cell: (w) => formatMemoryMb(w.rssMb),
    },
    {
      key: 'jobs',
      header: 'Running now',
      className: 'text-xs',
      cellProps: () => ({ 'data-testid': 'worker-jobs' }),
      cell: (w) =>
        w.jobs.length === 0 ? (
          <span className="text-slate-400">{QUEUE_KINDS.has(w.kind) ? 'idle' : '—'}</span>
        ) : (
          <ul className="space-y-0.5">
            {w.jobs.map((j) => (
              <li key={j.id} data-testid="worker-job">
                <span className="font-mono">{j.queue}</span> #{j.id}
                {j.runId && (
                  <>
                    {' '}
                    ·{' '}
                    <Link className="text-accent hover:underline" href={`/runs/${j.runId}`}>
                      run {j.runName ?? j.runId.slice(0, 8)}
                    </Link>
                  </>
                )}
                {j.startedAt && <span className="text-slate-500"> · for {timeAgo(j.startedAt, fetchedAt).replace(/ ago$/, '')}</span>}
                {j.attempts > 1 && <span className="text-amber-700"> · attempt {j.attempts}</span>}
              </li>
            ))}
          </ul>
        ),
    },
    {
      key: 'sandboxes',
      header: 'Sandboxes',
      headerProps: { title: 'sandboxes this worker keeps busy now' },
      className: 'text-xs tabular-nums',
      cell: (w) => w.busySandboxes || <span className="text-slate-400">0</span>,
    },
    {
      key: 'heartbeat',
      header: 'Heartbeat',
      className: (w) => `whitespace-nowrap text-xs ${late(w, fetchedAt) ? 'font-medium text-red-700' : 'text-slate-600'}`,
      cellProps: (w) => ({ title: formatDateTime(w.heartbeatAt) }),
      cell: (w) => (
        <>
          {timeAgo(w.heartbeatAt, fetchedAt)}
          {late(w, fetchedAt) && ' (late)'}
        </>
      ),
    },
  ];
}
