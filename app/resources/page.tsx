'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { RESOURCE_WINDOWS, type ResourceWindow } from '@/core/metrics';
import { SeriesChart } from '@/components/resources/series-chart';
import { QuotaTables } from '@/components/resources/quota-table';
import { CpuPartsBar } from '@/components/resources/cpu-parts-bar';
import { RunComputeTable } from '@/components/resources/run-compute-table';
import { ActivitySummary } from '@/components/workers/activity-summary';
import { hostAnchor } from '@/components/workers/host-section';
import { formatMemoryMb } from '@/components/workers/units';
import { UsageBar } from '@/components/workers/usage-bar';
import { StatusBadge } from '@/components/ui/status-badge';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, controlClass } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';

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
              <DataTable
                label="Nodes"
                rows={o.nodes}
                rowKey={(n) => n.node}
                rowTestId="node-row"
                columns={[
                  {
                    key: 'node',
                    header: 'Node',
                    cell: (n) => (
                      <Link className="text-accent hover:underline" href={`/workers#${hostAnchor(n.node)}`} title="this node's workers and their jobs">
                        {n.node}
                      </Link>
                    ),
                  },
                  {
                    key: 'cpu',
                    header: 'CPU',
                    className: 'whitespace-nowrap tabular-nums',
                    cell: (n) => (
                      <>
                        <UsageBar value={n.cpuUtilisation} max={1} label={`${n.node} CPU`} /> {pct(n.cpuUtilisation)} of {n.cpus ?? '—'} vCPU
                      </>
                    ),
                  },
                  {
                    key: 'cpu-parts',
                    header: 'CPU by what uses it',
                    headerProps: { title: "each part's share of all the node's CPUs, from /proc (docs/resources.md)" },
                    className: 'min-w-72',
                    cell: (n) => (n.cpuParts ? <CpuPartsBar node={n.node} parts={n.cpuParts} /> : <span className="text-slate-500">not measured yet</span>),
                  },
                  {
                    key: 'memory',
                    header: 'Memory',
                    className: 'whitespace-nowrap tabular-nums',
                    cell: (n) => (
                      <>
                        <UsageBar value={n.memoryUsedMb} max={n.memoryTotalMb} label={`${n.node} memory`} /> {formatMemoryMb(n.memoryUsedMb)} /{' '}
                        {formatMemoryMb(n.memoryTotalMb)}
                      </>
                    ),
                  },
                  {
                    key: 'gpu',
                    header: 'GPU',
                    cell: (n) =>
                      !n.gpuPresent ? (
                        <span className="text-slate-500">absent (no nvidia-smi)</span>
                      ) : (
                        n.gpus.map((g) => (
                          <div key={g.gpu} className="tabular-nums">
                            GPU {g.gpu}: {pct(g.utilisation)} · {formatMemoryMb(g.memoryUsedMb)} / {formatMemoryMb(g.memoryTotalMb)}
                          </div>
                        ))
                      ),
                  },
                ]}
              />
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
            <DataTable
              label="Tiers"
              rows={o.tiers.flatMap((t) => t.queues.map((q) => ({ ...q, tier: t.tier })))}
              rowKey={(q) => `${q.tier}/${q.queue}`}
              empty="No queued or running jobs."
              columns={[
                { key: 'tier', header: 'Tier', cell: (q) => q.tier },
                { key: 'queue', header: 'Queue', className: 'font-mono text-xs', cell: (q) => q.queue },
                { key: 'queued', header: 'Queued', className: 'tabular-nums', cell: (q) => q.queued },
                { key: 'running', header: 'Running', className: 'tabular-nums', cell: (q) => q.running },
              ]}
            />
          </Section>
          <Section title="Capacity and reserve">
            <DataTable
              label="Capacity"
              fit
              rows={
                [
                  ['CPU', 'cpu', (v: number) => `${+v.toFixed(1)} vCPU`],
                  ['Memory', 'memory_mb', (v: number) => formatMemoryMb(v)],
                  ['GPU', 'gpu', (v: number) => `${+v.toFixed(1)} GPU`],
                ] as const
              }
              rowKey={([, key]) => key}
              columns={[
                { key: 'resource', header: 'Resource', cell: ([title]) => title },
                {
                  key: 'capacity',
                  header: 'Capacity (running nodes)',
                  className: 'tabular-nums',
                  cell: ([, key, f]) => (o.capacity[key] === undefined ? '—' : f(o.capacity[key])),
                },
                {
                  key: 'reserve',
                  header: 'Reserve (critical only)',
                  headerProps: { title: 'held back for the critical tier' },
                  className: 'tabular-nums',
                  cell: ([, key, f]) => (o.reserve[key] === undefined ? '—' : f(o.reserve[key])),
                },
              ]}
            />
            <p className="mt-2 text-sm tabular-nums text-slate-600">
              Sandboxes now: {o.sandboxes.busy} busy · {o.sandboxes.idle} idle · {o.sandboxes.warm} warm
            </p>
          </Section>
          <Section title="Quota">
            <QuotaTables quota={o.quota} />
          </Section>
          <Section title="Compute per run (CPU-seconds by phase, so far)">
            <RunComputeTable rows={o.compute} />
          </Section>
          <Section title="Per-run usage (now)">
            <DataTable
              label="Runs"
              rows={o.runs}
              rowKey={(r) => r.run}
              empty="No active runs."
              columns={[
                {
                  key: 'run',
                  header: 'Run',
                  cell: (r) => (
                    <Link className="text-accent hover:underline" href={`/runs/${r.run}`}>
                      {r.name}
                    </Link>
                  ),
                },
                { key: 'status', header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
                { key: 'jobs', header: 'Running jobs', className: 'tabular-nums', cell: (r) => r.jobsRunning },
                { key: 'sandboxes', header: 'Busy sandboxes', className: 'tabular-nums', cell: (r) => r.sandboxes },
              ]}
            />
          </Section>
        </div>
      )}
    </>
  );
}
