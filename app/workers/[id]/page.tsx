'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { StatusBadge } from '@/components/ui/status-badge';
import { Facts, PageHeader, Section, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
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
        {w.jobs.length === 0 ? (
          <p className="text-sm text-slate-500">No job: this worker holds no lease now.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className={tableClass} aria-label="Running jobs">
              <thead>
                <tr>
                  <th className={thClass}>Job</th>
                  <th className={thClass}>Queue</th>
                  <th className={thClass}>Tier</th>
                  <th className={thClass}>Run</th>
                  <th className={thClass}>Episode</th>
                  <th className={thClass}>Running for</th>
                  <th className={thClass}>Attempt</th>
                </tr>
              </thead>
              <tbody>
                {w.jobs.map((j) => (
                  <tr key={j.id} data-testid="detail-job">
                    <td className={`${tdClass} tabular-nums`}>#{j.id}</td>
                    <td className={`${tdClass} font-mono text-xs`}>{j.queue}</td>
                    <td className={tdClass}>{j.tier}</td>
                    <td className={tdClass}>
                      {j.runId ? (
                        <Link className="text-accent hover:underline" href={`/runs/${j.runId}`}>
                          {j.runName ?? j.runId.slice(0, 8)}
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className={`${tdClass} font-mono text-xs`}>
                      {j.episodeId ? (
                        <Link className="text-accent hover:underline" href={`/episodes/${j.episodeId}`}>
                          {j.episodeId.slice(0, 8)}
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className={`${tdClass} tabular-nums`}>{j.startedAt ? timeAgo(j.startedAt, now).replace(/ ago$/, '') : '—'}</td>
                    <td className={`${tdClass} tabular-nums ${j.attempts > 1 ? 'text-amber-700' : ''}`}>{j.attempts}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {(w.busySandboxes.length > 0 || w.kind === 'sandbox') && (
        <Section title={`Busy sandboxes (${w.busySandboxes.length})`}>
          {w.busySandboxes.length === 0 ? (
            <p className="text-sm text-slate-500">None busy now.</p>
          ) : (
            <div className="overflow-x-auto">
              <table className={tableClass} aria-label="Busy sandboxes">
                <thead>
                  <tr>
                    <th className={thClass}>Sandbox</th>
                    <th className={thClass}>Runtime</th>
                    <th className={thClass}>Run</th>
                    <th className={thClass}>Episode</th>
                    <th className={thClass}>Busy for</th>
                  </tr>
                </thead>
                <tbody>
                  {w.busySandboxes.map((s) => (
                    <tr key={s.id}>
                      <td className={`${tdClass} font-mono text-xs`}>{s.id}</td>
                      <td className={tdClass}>{s.runtime}</td>
                      <td className={tdClass}>
                        {s.runId ? (
                          <Link className="text-accent hover:underline" href={`/runs/${s.runId}`}>
                            {s.runId.slice(0, 8)}
                          </Link>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td className={`${tdClass} font-mono text-xs`}>
                        {s.episodeId ? (
                          <Link className="text-accent hover:underline" href={`/episodes/${s.episodeId}`}>
                            {s.episodeId.slice(0, 8)}
                          </Link>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td className={`${tdClass} tabular-nums`}>{timeAgo(s.since, now).replace(/ ago$/, '')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
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
