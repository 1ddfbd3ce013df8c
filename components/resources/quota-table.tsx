'use client';
import type { QuotaRow, SchedulerQuota } from '@/server/resources/service';
import { tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { formatMemoryMb } from '@/components/workers/units';
import { UsageBar } from '@/components/workers/usage-bar';

/** Tables that take the width of their content, side by side. */
const autoTable = tableClass.replace('w-full', 'w-auto');

/** The quota resources as the scheduler labels them, with the unit each is read in. */
const RESOURCES: { key: string; title: string; format: (v: number) => string }[] = [
  { key: 'cpu', title: 'CPU', format: (v) => `${+v.toFixed(2)} vCPU` },
  { key: 'memory_mb', title: 'Memory', format: (v) => formatMemoryMb(v) },
  { key: 'gpu', title: 'GPU', format: (v) => `${+v.toFixed(2)} GPU` },
];

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
  const queues = new Map<string, { queue: string; tier: string; cells: Map<string, QuotaRow> }>();
  for (const q of quota.queues) {
    const row = queues.get(q.queue) ?? { queue: q.queue, tier: q.tier, cells: new Map() };
    row.cells.set(q.resource, q);
    queues.set(q.queue, row);
  }
  const waiting = Object.entries(quota.waiting).sort((a, b) => b[1] - a[1]);
  return (
    <div className="space-y-3">
      <div className="overflow-x-auto">
        <table className={tableClass} aria-label="Quota">
          <thead>
            <tr>
              <th className={thClass}>Quota queue</th>
              <th className={thClass}>Tier</th>
              {RESOURCES.map((r) => (
                <th key={r.key} className={thClass}>
                  {r.title} used / nominal
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...queues.values()].map((q) => (
              <tr key={q.queue} data-testid="quota-row">
                <td className={`${tdClass} font-medium`}>{q.queue}</td>
                <td className={tdClass}>{q.tier}</td>
                {RESOURCES.map((r) => {
                  const c = q.cells.get(r.key);
                  if (!c)
                    return (
                      <td key={r.key} className={`${tdClass} text-slate-400`}>
                        —
                      </td>
                    );
                  return (
                    <td key={r.key} className={`${tdClass} whitespace-nowrap text-xs tabular-nums`}>
                      <UsageBar value={c.used} max={c.nominal} label={`${q.queue} ${r.title}`} /> {r.format(c.used)} /{' '}
                      {c.nominal === null ? 'unlimited' : r.format(c.nominal)}
                      {c.nominal !== null && c.nominal > 0 && <span className="text-slate-500"> ({Math.round((c.used / c.nominal) * 100)}%)</span>}
                      {c.borrowed > 0 && <div className="text-amber-700">borrowing {r.format(c.borrowed)}</div>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="flex flex-wrap gap-6">
        <table className={autoTable} aria-label="Scheduler tiers">
          <thead>
            <tr>
              <th className={thClass}>Tier</th>
              <th className={thClass}>Admitted</th>
              <th className={thClass}>Waiting</th>
            </tr>
          </thead>
          <tbody>
            {quota.tiers.map((t) => (
              <tr key={t.tier}>
                <td className={tdClass}>{t.tier}</td>
                <td className={`${tdClass} tabular-nums`}>{t.admitted}</td>
                <td className={`${tdClass} tabular-nums`}>{t.queued}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table className={autoTable} aria-label="Why workloads wait">
          <thead>
            <tr>
              <th className={thClass}>Waiting on</th>
              <th className={thClass}>Workloads</th>
            </tr>
          </thead>
          <tbody>
            {waiting.length === 0 ? (
              <tr>
                <td className={`${tdClass} text-slate-500`} colSpan={2}>
                  nothing waits
                </td>
              </tr>
            ) : (
              waiting.map(([reason, n]) => (
                <tr key={reason}>
                  <td className={tdClass}>{reason}</td>
                  <td className={`${tdClass} tabular-nums`}>{n}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
        <p className="self-end text-xs text-slate-500">Scheduler sees {quota.nodes} node(s).</p>
      </div>
    </div>
  );
}
