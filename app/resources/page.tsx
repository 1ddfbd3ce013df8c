'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { RESOURCE_WINDOWS, type ResourceWindow } from '@/core/metrics';
import { SeriesChart } from '@/components/resources/series-chart';
import { QuotaTables } from '@/components/resources/quota-table';
import { ActivitySummary } from '@/components/workers/activity-summary';
import { hostAnchor } from '@/components/workers/host-section';
import { formatMemoryMb } from '@/components/workers/units';
import { UsageBar } from '@/components/workers/usage-bar';
import { StatusBadge } from '@/components/ui/status-badge';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, tableClass, tdClass, thClass, controlClass } from '@/components/ui/layout-parts';

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(0)}%`);

export default function ResourcesPage() {
  const trpc = useTRPC();
  const [window, setWindow] = useState<ResourceWindow>('1h');
  const overview = useQuery({ ...trpc.resources.overview.queryOptions(), refetchInterval: 5_000 });
  const cpu = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['node_cpu_utilisation'] }), refetchInterval: 10_000 });
  const mem = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['node_memory_used_mb'] }), refetchInterval: 10_000 });
  // `sandboxes` is written at every sampler tick: its times tell when an absent queue had depth 0.
  const queue = useQuery({ ...trpc.resources.series.queryOptions({ window, names: ['queue_depth', 'sandboxes'] }), refetchInterval: 10_000 });
  const o = overview.data;
  const queuePoints = queue.data?.points ?? [];
  return (
    <>
      <title>Resources · Crucible</title>
      <PageHeader
        title="Resources"
        subtitle="What runs now (the same figures as /workers), node utilisation from the metrics worker (samples every 5 s), queues per tier, quota and the elastic reserve."
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
      ) : overview.isError || !o ? (
        <ErrorNotice title="Could not load resources" error={overview.error} onRetry={() => overview.refetch()} />
      ) : (
        <div className="space-y-4">
          <ActivitySummary totals={o.activity.totals} at={o.activity.at} />
          {!o.samplerRunning && (
            <p role="status" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
              No recent samples: the metrics worker (workers/metrics/main.ts) has written nothing in the last minute, so node figures and charts are missing;
              `npm start` runs it. The figures above are read live and stay current.
            </p>
          )}
          {o.samplerRunning && (
            <Section title="Nodes">
              <div className="overflow-x-auto">
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
                        <td className={tdClass}>
                          <Link className="text-accent hover:underline" href={`/workers#${hostAnchor(n.node)}`} title="this node's workers and their jobs">
                            {n.node}
                          </Link>
                        </td>
                        <td className={`${tdClass} whitespace-nowrap tabular-nums`}>
                          <UsageBar value={n.cpuUtilisation} max={1} label={`${n.node} CPU`} /> {pct(n.cpuUtilisation)} of {n.cpus ?? '—'} vCPU
                        </td>
                        <td className={`${tdClass} whitespace-nowrap tabular-nums`}>
                          <UsageBar value={n.memoryUsedMb} max={n.memoryTotalMb} label={`${n.node} memory`} /> {formatMemoryMb(n.memoryUsedMb)} /{' '}
                          {formatMemoryMb(n.memoryTotalMb)}
                        </td>
                        <td className={tdClass}>
                          {!n.gpuPresent ? (
                            <span className="text-slate-500">absent (no nvidia-smi)</span>
                          ) : (
                            n.gpus.map((g) => (
                              <div key={g.gpu} className="tabular-nums">
                                GPU {g.gpu}: {pct(g.utilisation)} · {formatMemoryMb(g.memoryUsedMb)} / {formatMemoryMb(g.memoryTotalMb)}
                              </div>
                            ))
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </Section>
          )}
          <div className="grid gap-4 lg:grid-cols-3">
            <SeriesChart
              label="CPU utilisation per node"
              unit="%"
              points={cpu.data?.points ?? []}
              format={(v) => `${(v * 100).toFixed(0)}`}
              seriesName={(l) => l.node ?? 'node'}
              yMax={1}
            />
            <SeriesChart
              label="Memory used per node"
              unit="GB"
              testId="memory-chart"
              // in GB, so the axis ticks are round in the unit it shows
              points={(mem.data?.points ?? []).map((p) => ({ ...p, value: p.value / 1024 }))}
              format={(v) => String(+v.toFixed(1))}
              seriesName={(l) => l.node ?? 'node'}
              capacity={o.nodes.flatMap((n) =>
                n.memoryTotalMb ? [{ label: `${n.node} total ${formatMemoryMb(n.memoryTotalMb)}`, value: n.memoryTotalMb / 1024 }] : [],
              )}
            />
            <SeriesChart
              label="Queue depth: jobs waiting per tier · queue"
              unit="jobs"
              testId="queue-chart"
              points={queuePoints.filter((p) => p.name === 'queue_depth')}
              sampleTimes={[...new Set(queuePoints.filter((p) => p.name === 'sandboxes').map((p) => p.at))]}
              format={(v) => (Number.isInteger(v) ? String(v) : v.toFixed(1))}
              seriesName={(l) => `${l.tier ?? 'standard'} · ${l.queue ?? '?'}`}
              step
            />
          </div>
          <Section title="Queues per tier (now)">
            {o.tiers.length === 0 ? (
              <p className="text-sm text-slate-500">No queued or running jobs.</p>
            ) : (
              <table className={tableClass} aria-label="Tiers">
                <thead>
                  <tr>
                    <th className={thClass}>Tier</th>
                    <th className={thClass}>Queue</th>
                    <th className={thClass}>Queued</th>
                    <th className={thClass}>Running</th>
                  </tr>
                </thead>
                <tbody>
                  {o.tiers.flatMap((t) =>
                    t.queues.map((q) => (
                      <tr key={`${t.tier}/${q.queue}`}>
                        <td className={tdClass}>{t.tier}</td>
                        <td className={`${tdClass} font-mono text-xs`}>{q.queue}</td>
                        <td className={`${tdClass} tabular-nums`}>{q.queued}</td>
                        <td className={`${tdClass} tabular-nums`}>{q.running}</td>
                      </tr>
                    )),
                  )}
                </tbody>
              </table>
            )}
          </Section>
          <Section title="Capacity and reserve">
            <table className={tableClass.replace('w-full', 'w-auto')} aria-label="Capacity">
              <thead>
                <tr>
                  <th className={thClass}>Resource</th>
                  <th className={thClass}>Capacity (running nodes)</th>
                  <th className={thClass} title="held back for the critical tier">
                    Reserve (critical only)
                  </th>
                </tr>
              </thead>
              <tbody>
                {(
                  [
                    ['CPU', 'cpu', (v: number) => `${+v.toFixed(1)} vCPU`],
                    ['Memory', 'memory_mb', (v: number) => formatMemoryMb(v)],
                    ['GPU', 'gpu', (v: number) => `${+v.toFixed(1)} GPU`],
                  ] as const
                ).map(([title, key, f]) => (
                  <tr key={key}>
                    <td className={tdClass}>{title}</td>
                    <td className={`${tdClass} tabular-nums`}>{o.capacity[key] === undefined ? '—' : f(o.capacity[key])}</td>
                    <td className={`${tdClass} tabular-nums`}>{o.reserve[key] === undefined ? '—' : f(o.reserve[key])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="mt-2 text-sm tabular-nums text-slate-600">
              Sandboxes now: {o.sandboxes.busy} busy · {o.sandboxes.idle} idle · {o.sandboxes.warm} warm
            </p>
          </Section>
          <Section title="Quota">
            <QuotaTables quota={o.quota} />
          </Section>
          <Section title="Per-run usage (now)">
            {o.runs.length === 0 ? (
              <p className="text-sm text-slate-500">No active runs.</p>
            ) : (
              <table className={tableClass} aria-label="Runs">
                <thead>
                  <tr>
                    <th className={thClass}>Run</th>
                    <th className={thClass}>Status</th>
                    <th className={thClass}>Running jobs</th>
                    <th className={thClass}>Busy sandboxes</th>
                  </tr>
                </thead>
                <tbody>
                  {o.runs.map((r) => (
                    <tr key={r.run}>
                      <td className={tdClass}>
                        <Link className="text-accent hover:underline" href={`/runs/${r.run}`}>
                          {r.name}
                        </Link>
                      </td>
                      <td className={tdClass}>
                        <StatusBadge status={r.status} />
                      </td>
                      <td className={`${tdClass} tabular-nums`}>{r.jobsRunning}</td>
                      <td className={`${tdClass} tabular-nums`}>{r.sandboxes}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
        </div>
      )}
    </>
  );
}
