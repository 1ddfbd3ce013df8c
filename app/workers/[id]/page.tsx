'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { StatusBadge } from '@/components/ui/status-badge';
import { Facts, PageHeader, Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, timeAgo } from '@/components/display-format';
import { hostAnchor } from '@/components/workers/host-section';
import { formatCpuPercent, formatMemoryMb } from '@/components/workers/units';
import { UsageBar } from '@/components/workers/usage-bar';

/** One worker (the last level of node → workers → jobs): its own use, what it runs now, and its recent log lines. */
export default function WorkerPage() {
  const { id: raw } = useParams<{ id: string }>();
  const id = decodeURIComponent(raw);
  const trpc = useTRPC();
  const worker = useQuery({ ...trpc.workers.get.queryOptions({ id }), refetchInterval: 5_000 });
  const back = (
    <nav aria-label="Breadcrumb" className="mb-2 text-sm">
      <Link href="/workers" className="text-accent hover:underline">
        Workers
      </Link>
      {worker.data && (
        <>
          <span className="text-slate-400"> › </span>
          <Link href={`/workers#${hostAnchor(worker.data.hostname)}`} className="text-accent hover:underline" data-testid="breadcrumb-host">
            {worker.data.hostname}
          </Link>
        </>
      )}
    </nav>
  );
  if (worker.isPending) return <Loading label="Loading worker…" />;
  if (worker.isError)
    return (
      <>
        {back}
        <ErrorNotice title="Could not load the worker" error={worker.error} onRetry={() => worker.refetch()} />
      </>
    );
  const w = worker.data;
  const now = worker.dataUpdatedAt;
  const cap = w.capacity;
  return (
    <>
      <title>{`${w.id} · Workers · Crucible`}</title>
      {back}
      <PageHeader
        title={<span className="font-mono text-base">{w.id}</span>}
        subtitle={
          <>
            {w.kind} worker on {w.hostname} (pid {w.pid}){w.node && w.node !== w.hostname ? ` · scheduler node ${w.node}` : ''} · {w.hostWorkersRunning} running
            worker(s) on this host
          </>
        }
      />
      <Section title="Process">
        <Facts
          items={[
            ['Status', <StatusBadge key="s" status={w.status} />],
            [
              'CPU (this process)',
              <span key="c" data-testid="detail-cpu" title="% of one core over the last heartbeat interval">
                <UsageBar value={w.cpuPercent} max={100} label="CPU" /> {formatCpuPercent(w.cpuPercent)}
              </span>,
            ],
            [
              'Memory (RSS)',
              <span key="m" data-testid="detail-memory">
                {formatMemoryMb(w.rssMb)}
                {cap && <span className="text-slate-500"> of {formatMemoryMb(cap.memoryMb)}</span>}
              </span>,
            ],
            ['Node capacity', cap ? `${cap.cpus} vCPU · ${formatMemoryMb(cap.memoryMb)}${cap.gpuCount > 0 ? ` · ${cap.gpuCount} GPU` : ''}` : '—'],
            [
              'Started',
              <span key="st" title={formatDateTime(w.startedAt)}>
                {timeAgo(w.startedAt, now)}
              </span>,
            ],
            [
              w.stoppedAt ? 'Stopped' : 'Heartbeat',
              <span key="h" title={formatDateTime(w.stoppedAt ?? w.heartbeatAt)}>
                {timeAgo(w.stoppedAt ?? w.heartbeatAt, now)}
              </span>,
            ],
          ]}
        />
      </Section>
      <Section title={`Running now (${w.jobs.length})`}>
        <DataTable
          label="Running jobs"
          rows={w.jobs}
          rowKey={(j) => j.id}
          rowTestId="detail-job"
          empty="No job: this worker holds no lease now."
          columns={[
            { key: 'job', header: 'Job', className: 'tabular-nums', cell: (j) => `#${j.id}` },
            { key: 'queue', header: 'Queue', className: 'font-mono text-xs', cell: (j) => j.queue },
            { key: 'tier', header: 'Tier', cell: (j) => j.tier },
            {
              key: 'run',
              header: 'Run',
              cell: (j) =>
                j.runId ? (
                  <Link className="text-accent hover:underline" href={`/runs/${j.runId}`}>
                    {j.runName ?? j.runId.slice(0, 8)}
                  </Link>
                ) : (
                  '—'
                ),
            },
            {
              key: 'episode',
              header: 'Episode',
              className: 'font-mono text-xs',
              cell: (j) =>
                j.episodeId ? (
                  <Link className="text-accent hover:underline" href={`/episodes/${j.episodeId}`}>
                    {j.episodeId.slice(0, 8)}
                  </Link>
                ) : (
                  '—'
                ),
            },
            {
              key: 'for',
              header: 'Running for',
              className: 'tabular-nums',
              cell: (j) => (j.startedAt ? timeAgo(j.startedAt, now).replace(/ ago$/, '') : '—'),
            },
            { key: 'attempt', header: 'Attempt', className: (j) => `tabular-nums ${j.attempts > 1 ? 'text-amber-700' : ''}`, cell: (j) => j.attempts },
          ]}
        />
      </Section>
      {(w.busySandboxes.length > 0 || w.kind === 'sandbox') && (
        <Section title={`Busy sandboxes (${w.busySandboxes.length})`}>
          <DataTable
            label="Busy sandboxes"
            rows={w.busySandboxes}
            rowKey={(s) => s.id}
            empty="None busy now."
            columns={[
              { key: 'sandbox', header: 'Sandbox', className: 'font-mono text-xs', cell: (s) => s.id },
              { key: 'runtime', header: 'Runtime', cell: (s) => s.runtime },
              {
                key: 'run',
                header: 'Run',
                cell: (s) =>
                  s.runId ? (
                    <Link className="text-accent hover:underline" href={`/runs/${s.runId}`}>
                      {s.runId.slice(0, 8)}
                    </Link>
                  ) : (
                    '—'
                  ),
              },
              {
                key: 'episode',
                header: 'Episode',
                className: 'font-mono text-xs',
                cell: (s) =>
                  s.episodeId ? (
                    <Link className="text-accent hover:underline" href={`/episodes/${s.episodeId}`}>
                      {s.episodeId.slice(0, 8)}
                    </Link>
                  ) : (
                    '—'
                  ),
              },
              { key: 'for', header: 'Busy for', className: 'tabular-nums', cell: (s) => timeAgo(s.since, now).replace(/ ago$/, '') },
            ]}
          />
        </Section>
      )}
      <Section title={`Recent log lines (${w.recentLogs.length}, newest last)`}>
        {w.recentLogs.length === 0 ? (
          <p className="text-sm text-slate-500">Nothing logged yet (the lines arrive with the next heartbeat, every few seconds).</p>
        ) : (
          <pre
            data-testid="worker-log"
            className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-3 font-mono text-xs leading-5 text-slate-100"
          >
            {w.recentLogs.map((l, i) => (
              <div key={i}>
                <span className="select-none text-slate-400">{formatDateTime(l.at).slice(11, 19)} </span>
                {l.line}
              </div>
            ))}
          </pre>
        )}
      </Section>
    </>
  );
}
