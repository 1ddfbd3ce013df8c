'use client';
import type { RouterOutputs } from '@/components/trpc';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { formatDateTime } from '@/components/display-format';

type DeliveryRow = RouterOutputs['alerts']['deliveries'][number];

/** The delivery log: each notification to each receiver, its attempts and their outcome. */
export function DeliveriesTable({ rows }: { rows: readonly DeliveryRow[] }) {
  const columns: DataColumn<DeliveryRow>[] = [
    { key: 'at', header: 'Queued', cell: (d) => formatDateTime(d.createdAt) },
    { key: 'receiver', header: 'Receiver', cell: (d) => d.receiver },
    { key: 'group', header: 'Group', cell: (d) => <span className="font-mono text-xs">{d.groupKey}</span> },
    { key: 'kind', header: 'Kind', cell: (d) => `${d.kind} #${d.seq} (${d.alerts} alert${d.alerts === 1 ? '' : 's'})` },
    {
      key: 'state',
      header: 'Delivery',
      cell: (d) => (
        <span className={d.state === 'delivered' ? 'text-emerald-700' : d.state === 'failed' ? 'text-red-700' : 'text-amber-700'}>
          {d.state}
          {d.attempts > 0 && ` after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`}
          {d.lastError && d.state !== 'delivered' && `: ${d.lastError}`}
        </span>
      ),
      cellProps: (d) => ({
        title: d.attemptLog
          .map((a) => `${formatDateTime(a.at)} ${a.ok ? 'ok' : (a.error ?? 'failed')}${a.httpStatus ? ` (HTTP ${a.httpStatus})` : ''}`)
          .join('\n'),
      }),
    },
  ];
  return (
    <DataTable
      label="Deliveries"
      columns={columns}
      rows={rows}
      rowKey={(d) => d.id}
      rowTestId="delivery-row"
      empty="No notifications sent yet (receivers are set in CRUCIBLE_ALERT_WEBHOOKS)."
    />
  );
}
