'use client';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { RESOURCE_WINDOWS, type ResourceWindow } from '@/core/metrics';
import { SeriesChart } from '@/components/resources/series-chart';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, tableClass, tdClass, thClass, controlClass } from '@/components/ui/layout-parts';

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(0)}%`);
const gb = (mb: number | null) => (mb === null ? '—' : `${(mb / 1024).toFixed(1)} GB`);

export default function ResourcesPage() {
  const trpc = useTRPC();
  const [window, setWindow] = useState<ResourceWindow>('1h');
  const overview = useQuery({ ...trpc.resources.overview.queryOptions(), refetchInterval: 5_000 });
  const cpu = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['node_cpu_utilisation'] }), refetchInterval: 10_000 });
  const mem = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['node_memory_used_mb'] }), refetchInterval: 10_000 });
  const queue = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['queue_depth'] }), refetchInterval: 10_000 });
  const o = overview.data;
  return (
    <>
      <title>Resources · Crucible</title>
      <PageHeader
        title="Resources"
        subtitle="Live utilisation from the metrics worker (samples every 5 s), queues per tier and the elastic reserve."
        actions={
          <label className="flex items-center gap-1.5 text-slate-600">
            Window
            <select aria-label="Window" className={controlClass} value={window} onChange={(e) => setWindow(e.target.value as ResourceWindow)}>
              {RESOURCE_WINDOWS.map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
            </select>
          </label>
        }
      />
      {overview.isPending ? (
        <Loading label="Loading resources…" />
      ) : overview.isError ? (
        <ErrorNotice title="Could not load resources" error={overview.error} onRetry={() => overview.refetch()} />
      ) : !o || !o.samplerRunning ? (
        <EmptyState title="No recent samples">
          The metrics worker (workers/metrics/main.ts) has written nothing in the last minute; `npm start` runs it.
        </EmptyState>
      ) : (
        <div className="space-y-6">
          <Section title="Nodes">
            <table className={tableClass} aria-label="Nodes">
              <thead>
                <tr>
                  <th className={thClass}>Node</th>
                  <th className={thClass}>CPU</th>
                  <th className={thClass}>Memory</th>
                  <th className={thClass}>GPU</th>
                </tr>
              </thead>
              <tbody>
                {o.nodes.map((n) => (
                  <tr key={n.node} data-testid="node-row">
                    <td className={tdClass}>{n.node}</td>
                    <td className={`${tdClass} tabular-nums`}>
                      {pct(n.cpuUtilisation)} of {n.cpus ?? '—'} vCPU
                    </td>
                    <td className={`${tdClass} tabular-nums`}>
                      {gb(n.memoryUsedMb)} / {gb(n.memoryTotalMb)}
                    </td>
                    <td className={tdClass}>
                      {!n.gpuPresent ? (
                        <span className="text-slate-500">absent (no nvidia-smi)</span>
                      ) : (
                        n.gpus.map((g) => (
                          <div key={g.gpu} className="tabular-nums">
                            GPU {g.gpu}: {pct(g.utilisation)} · {gb(g.memoryUsedMb)} / {gb(g.memoryTotalMb)}
                          </div>
                        ))
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section title="Sandboxes, capacity and reserve">
            <p className="text-sm tabular-nums">
              Sandboxes busy {o.sandboxes.busy ?? '—'} · idle {o.sandboxes.idle ?? '—'} · warm {o.sandboxes.warm ?? '—'}
            </p>
            <p className="text-sm tabular-nums">
              Capacity {o.capacity.cpu ?? 0} vCPU, {gb(o.capacity.memory_mb ?? null)}, {o.capacity.gpu ?? 0} GPU · reserve (critical only){' '}
              {o.reserve.cpu?.toFixed(1) ?? 0} vCPU, {gb(o.reserve.memory_mb ?? null)}, {o.reserve.gpu?.toFixed(1) ?? 0} GPU
            </p>
            {o.quota.status !== 'live' ? (
              <p className="text-sm text-slate-500">Quota used vs borrowed: {o.quota.status}.</p>
            ) : (
              <>
                <p className="text-sm tabular-nums">
                  Scheduler: {o.quota.nodes} node(s) ·{' '}
                  {o.quota.tiers.map((t) => `${t.tier} ${t.admitted} admitted / ${t.queued} queued`).join(' · ') || 'no workloads'}
                  {Object.keys(o.quota.waiting).length > 0 && (
                    <>
                      {' '}
                      · waiting on{' '}
                      {Object.entries(o.quota.waiting)
                        .map(([r, n]) => `${r} ${n}`)
                        .join(', ')}
                    </>
                  )}
                </p>
                <table className={tableClass} aria-label="Quota">
                  <thead>
                    <tr>
                      <th className={thClass}>Queue</th>
                      <th className={thClass}>Tier</th>
                      <th className={thClass}>Resource</th>
                      <th className={thClass}>Used</th>
                      <th className={thClass}>Nominal</th>
                      <th className={thClass}>Borrowed</th>
                    </tr>
                  </thead>
                  <tbody>
                    {o.quota.queues.map((q) => (
                      <tr key={`${q.queue}/${q.resource}`}>
                        <td className={tdClass}>{q.queue}</td>
                        <td className={tdClass}>{q.tier}</td>
                        <td className={tdClass}>{q.resource}</td>
                        <td className={`${tdClass} tabular-nums`}>{+q.used.toFixed(2)}</td>
                        <td className={`${tdClass} tabular-nums`}>{q.nominal === null ? 'unlimited' : +q.nominal.toFixed(2)}</td>
                        <td className={`${tdClass} tabular-nums`}>{+q.borrowed.toFixed(2)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </Section>
          <Section title="Queues per tier">
            {o.tiers.length === 0 ? (
              <p className="text-sm text-slate-500">No queued or running jobs.</p>
            ) : (
              <table className={tableClass} aria-label="Tiers">
                <thead>
                  <tr>
                    <th className={thClass}>Tier</th>
                    <th className={thClass}>Queue</th>
                    <th className={thClass}>Queued</th>
                    <th className={thClass}>Admitted</th>
                  </tr>
                </thead>
                <tbody>
                  {o.tiers.flatMap((t) =>
                    t.queues.map((q) => (
                      <tr key={`${t.tier}/${q.queue}`}>
                        <td className={tdClass}>{t.tier}</td>
                        <td className={tdClass}>{q.queue}</td>
                        <td className={tdClass}>{q.queued}</td>
                        <td className={tdClass}>{q.running}</td>
                      </tr>
                    )),
                  )}
                </tbody>
              </table>
            )}
          </Section>
          <Section title="Per-run usage">
            {o.runs.length === 0 ? (
              <p className="text-sm text-slate-500">No active runs.</p>
            ) : (
              <table className={tableClass} aria-label="Runs">
                <thead>
                  <tr>
                    <th className={thClass}>Run</th>
                    <th className={thClass}>Running jobs</th>
                    <th className={thClass}>Sandboxes</th>
                  </tr>
                </thead>
                <tbody>
                  {o.runs.map((r) => (
                    <tr key={r.run}>
                      <td className={`${tdClass} font-mono text-xs`}>{r.run}</td>
                      <td className={tdClass}>{r.jobsRunning}</td>
                      <td className={tdClass}>{r.sandboxes}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <div className="grid gap-4 md:grid-cols-3">
            <SeriesChart label="CPU utilisation" points={cpu.data?.points ?? []} format={(v) => `${(v * 100).toFixed(0)}%`} />
            <SeriesChart label="Memory used (MB)" points={mem.data?.points ?? []} format={(v) => v.toFixed(0)} />
            <SeriesChart label="Queue depth" points={queue.data?.points ?? []} format={(v) => v.toFixed(0)} />
          </div>
        </div>
      )}
    </>
  );
}
