'use client';
import type { QuotaRow, SchedulerQuota } from '@/server/resources/service';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { formatMemoryMb } from '@/components/workers/units';
import { UsageBar } from '@/components/workers/usage-bar';

/** The quota resources as the scheduler labels them, with the unit each is read in. */
const RESOURCES: { key: string; title: string; format: (v: number) => string }[] = [
  { key: 'cpu', title: 'CPU', format: (v) => `${+v.toFixed(2)} vCPU` },
  { key: 'memory_mb', title: 'Memory', format: (v) => formatMemoryMb(v) },
  { key: 'gpu', title: 'GPU', format: (v) => `${+v.toFixed(2)} GPU` },
];

/** One quota queue's row: its cell per resource. */
type QuotaQueue = { queue: string; tier: string; cells: Map<string, QuotaRow> };

/**
 * The live scheduler's quota as a table a person reads at a glance: one row per quota queue,
 * one column per resource with "used of nominal", a bar, and what it borrows beyond its
 * nominal share; then admitted/queued per tier and why workloads wait.
 */
export function QuotaTables({ quota }: { quota: SchedulerQuota }) {
  if (quota.status !== 'live')
    return (
      <p className="text-sm text-slate-500" data-testid="quota-absent">
        No scheduler running: quota use appears here once the scheduler (workers/scheduler-worker) writes its figures.
      </p>
    );
  const queues = new Map<string, QuotaQueue>();
  for (const q of quota.queues) {
    const row = queues.get(q.queue) ?? { queue: q.queue, tier: q.tier, cells: new Map() };
    row.cells.set(q.resource, q);
    queues.set(q.queue, row);
  }
  const waiting = Object.entries(quota.waiting).sort((a, b) => b[1] - a[1]);
  return (
    <div className="space-y-3">
      <DataTable
        label="Quota"
        rows={[...queues.values()]}
        rowKey={(q) => q.queue}
        rowTestId="quota-row"
        columns={[
          { key: 'queue', header: 'Quota queue', className: 'font-medium', cell: (q) => q.queue },
          { key: 'tier', header: 'Tier', cell: (q) => q.tier },
          ...RESOURCES.map((r): DataColumn<QuotaQueue> => ({
            key: r.key,
            header: `${r.title} used / nominal`,
            className: (q) => (q.cells.has(r.key) ? 'whitespace-nowrap text-xs tabular-nums' : 'text-slate-400'),
            cell: (q) => {
              const c = q.cells.get(r.key);
              if (!c) return '—';
              return (
                <>
                  <UsageBar value={c.used} max={c.nominal} label={`${q.queue} ${r.title}`} /> {r.format(c.used)} /{' '}
                  {c.nominal === null ? 'unlimited' : r.format(c.nominal)}
                  {c.nominal !== null && c.nominal > 0 && <span className="text-slate-500"> ({Math.round((c.used / c.nominal) * 100)}%)</span>}
                  {c.borrowed > 0 && <div className="text-amber-700">borrowing {r.format(c.borrowed)}</div>}
                </>
              );
            },
          })),
        ]}
      />
      <div className="flex flex-wrap gap-6">
        <DataTable
          label="Scheduler tiers"
          fit
          rows={quota.tiers}
          rowKey={(t) => t.tier}
          columns={[
            { key: 'tier', header: 'Tier', cell: (t) => t.tier },
            { key: 'admitted', header: 'Admitted', className: 'tabular-nums', cell: (t) => t.admitted },
            { key: 'waiting', header: 'Waiting', className: 'tabular-nums', cell: (t) => t.queued },
          ]}
        />
        <DataTable
          label="Why workloads wait"
          fit
          rows={waiting}
          rowKey={([reason]) => reason}
          empty="nothing waits"
          emptyInTable
          columns={[
            { key: 'reason', header: 'Waiting on', cell: ([reason]) => reason },
            { key: 'workloads', header: 'Workloads', className: 'tabular-nums', cell: ([, n]) => n },
          ]}
        />
        <p className="self-end text-xs text-slate-500">Scheduler sees {quota.nodes} node(s).</p>
      </div>
    </div>
  );
}
