'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { DataTable } from '@/components/ui/data-table';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { StatusBadge } from '@/components/ui/status-badge';
import { formatDateTime, timeAgo } from '@/components/display-format';

/** The runs that train a registered model, newest first, each linked to its page. */
export function ModelRuns({ name }: { name: string }) {
  const trpc = useTRPC();
  const runs = useQuery(trpc.models.runs.queryOptions({ name }));
  if (runs.isPending) return <Loading label="Loading runs…" />;
  if (runs.isError) return <ErrorNotice title="Could not load the runs" error={runs.error} onRetry={() => runs.refetch()} />;
  return (
    <DataTable
      label="Runs of this model"
      rows={runs.data}
      rowKey={(r) => r.id}
      rowTestId="model-run-row"
      wrapperClassName="overflow-x-auto"
      empty={
        <p className="text-slate-600" data-testid="model-no-runs">
          No run has used this model yet. Launch one with it under Policy on the{' '}
          <Link href="/runs/new" className="text-accent hover:underline">
            launch form
          </Link>
          .
        </p>
      }
      columns={[
        {
          key: 'name',
          header: 'Run',
          cell: (r) => (
            <Link href={`/runs/${r.id}`} className="font-medium text-accent hover:underline">
              {r.name}
            </Link>
          ),
        },
        { key: 'status', header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
        { key: 'suite', header: 'Suite', className: 'font-mono text-xs', cell: (r) => r.suite },
        { key: 'training', header: 'Training', cell: (r) => (r.training === 'lora' ? 'LoRA' : r.training) },
        {
          key: 'created',
          header: 'Created',
          className: 'whitespace-nowrap text-slate-600',
          cellProps: (r) => ({ title: formatDateTime(r.createdAt) }),
          cell: (r) => timeAgo(r.createdAt),
        },
      ]}
    />
  );
}
