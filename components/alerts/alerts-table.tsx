'use client';
import Link from 'next/link';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC, type RouterOutputs } from '@/components/trpc';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { Button } from '@/components/ui/button';
import { formatDateTime, timeAgo } from '@/components/display-format';
import { errorMessage } from '@/components/api-error';
import { LabelChips, severityClass } from './alert-labels';

export type AlertRow = RouterOutputs['alerts']['list'][number];

/** Why an alert is not notified, if it is muted. */
function mutedBy(a: AlertRow): string | null {
  if (a.silencedBy)
    return `silenced${a.silenceReason ? `: ${a.silenceReason}` : ''}${a.silenceExpiresAt ? ` (until ${formatDateTime(a.silenceExpiresAt)})` : ''}`;
  if (a.inhibitedBy) return 'inhibited by a firing alert that explains it (e.g. its node is lost)';
  return null;
}

/**
 * Alerts, firing first: severity, rule, what it is about, what is wrong (the rule's summary),
 * since when, and whether it is muted or acknowledged. Operators acknowledge and silence.
 */
export function AlertsTable({ rows, canOperate, onSilence }: { rows: readonly AlertRow[]; canOperate: boolean; onSilence: (a: AlertRow) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ack = useMutation(trpc.alerts.acknowledge.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.alerts.pathKey() }) }));
  const columns: DataColumn<AlertRow>[] = [
    {
      key: 'state',
      header: 'State',
      cell: (a) => (
        <span className="flex flex-col gap-0.5">
          <span className={`w-fit rounded px-1.5 text-xs font-semibold ${severityClass(a.severity)}`}>{a.severity}</span>
          <span className="text-xs text-slate-600">{a.state}</span>
        </span>
      ),
    },
    {
      key: 'rule',
      header: 'Alert',
      cell: (a) => (
        <span className="flex flex-col gap-1">
          <span className="font-medium text-slate-900">{a.rule}</span>
          <span className="text-slate-700" data-testid="alert-summary">
            {a.summary}
          </span>
          <LabelChips labels={a.labels} />
          {mutedBy(a) && (
            <span className="text-xs text-slate-500" data-testid="alert-muted">
              {mutedBy(a)}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'run',
      header: 'Run',
      cell: (a) =>
        a.runId ? (
          <Link href={`/runs/${a.runId}`} className="text-accent hover:underline">
            {a.labels.run_name ?? a.runId.slice(0, 8)}
          </Link>
        ) : (
          '—'
        ),
    },
    {
      key: 'since',
      header: 'Since',
      cell: (a) => (
        <span
          title={`condition since ${formatDateTime(a.activeSince)}${a.firedAt ? `; fired ${formatDateTime(a.firedAt)}` : ''}${a.resolvedAt ? `; resolved ${formatDateTime(a.resolvedAt)}` : ''}`}
        >
          {a.state === 'resolved' ? `resolved ${timeAgo(a.resolvedAt)}` : timeAgo(a.firedAt ?? a.activeSince)}
        </span>
      ),
    },
    {
      key: 'actions',
      header: null,
      cell: (a) =>
        a.state === 'resolved' ? null : (
          <span className="flex flex-wrap justify-end gap-1">
            {a.acknowledgedBy ? (
              <span className="text-xs text-slate-600" data-testid="alert-acked">
                acknowledged by {a.acknowledgedBy}
              </span>
            ) : (
              canOperate && (
                <Button onClick={() => ack.mutate({ id: a.id })} disabled={ack.isPending} data-testid="alert-ack">
                  Acknowledge
                </Button>
              )
            )}
            {canOperate && !a.silencedBy && (
              <Button onClick={() => onSilence(a)} data-testid="alert-silence">
                Silence…
              </Button>
            )}
          </span>
        ),
    },
  ];
  return (
    <>
      {ack.isError && <p className="mb-2 text-sm text-red-700">{errorMessage(ack.error)}</p>}
      <DataTable label="Alerts" columns={columns} rows={rows} rowKey={(a) => a.id} rowTestId="alert-row" empty="No alerts here." />
    </>
  );
}
