'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, shortHash, timeAgo } from '@/components/display-format';
import { formatBytes, formatParameters } from '@/components/models/model-format';
import { ImportModelForm } from '@/components/models/import-model-form';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';

export default function ModelsPage() {
  const trpc = useTRPC();
  const user = useCurrentUser();
  const models = useQuery(trpc.models.list.queryOptions());
  const rows = models.data ?? [];
  return (
    <>
      <title>Models · Crucible</title>
      <PageHeader
        title="Models"
        subtitle={
          <>
            Hugging Face models registered with <code>crucible models import</code> or below; their files live in the artifact store by sha256.
          </>
        }
      />
      {can(user.role, 'operateRuns') && <ImportModelForm />}
      {models.isPending ? (
        <Loading label="Loading models…" />
      ) : models.isError ? (
        <ErrorNotice title="Could not load models" error={models.error} onRetry={() => models.refetch()} />
      ) : (
        <DataTable
          label="Models"
          rows={rows}
          rowKey={(m) => m.id}
          rowTestId="model-row"
          wrapperClassName="overflow-x-auto rounded border border-slate-200 bg-white"
          empty={
            <EmptyState title="No models registered">
              Register a Hugging Face directory with <code>npx crucible models import DIR --name NAME</code>.
            </EmptyState>
          }
          columns={[
            {
              key: 'name',
              header: 'Name',
              cell: (m) => (
                <Link href={`/models/${encodeURIComponent(m.name)}`} className="whitespace-nowrap font-medium text-accent hover:underline">
                  {m.name}
                </Link>
              ),
            },
            { key: 'architecture', header: 'Architecture', cell: (m) => m.architecture },
            {
              key: 'parameters',
              header: 'Parameters',
              align: 'right',
              className: 'tabular-nums',
              cellProps: (m) => ({ title: `${m.parameters.toLocaleString('en-US')} parameters` }),
              cell: (m) => formatParameters(m.parameters),
            },
            { key: 'dtype', header: 'Dtype', className: 'font-mono text-xs', cell: (m) => m.dtype },
            { key: 'size', header: 'Size', align: 'right', className: 'whitespace-nowrap tabular-nums', cell: (m) => formatBytes(m.bytes) },
            { key: 'chatTemplate', header: 'Chat template', className: 'text-slate-600', cell: (m) => (m.chatTemplate ? 'yes' : 'none') },
            {
              key: 'weights',
              header: 'Weights',
              className: 'font-mono text-xs text-slate-600',
              cellProps: (m) => ({ title: m.weightsSha256 }),
              cell: (m) => shortHash(m.weightsSha256),
            },
            {
              key: 'imported',
              header: 'Imported',
              className: 'whitespace-nowrap text-slate-600',
              cellProps: (m) => ({ title: formatDateTime(m.createdAt) }),
              cell: (m) => `${timeAgo(m.createdAt)} · ${m.createdBy}`,
            },
          ]}
        />
      )}
    </>
  );
}
