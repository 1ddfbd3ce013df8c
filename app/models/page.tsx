'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { formatDateTime, shortHash, timeAgo } from '@/components/display-format';
import { formatBytes, formatParameters } from '@/components/models/model-format';

export default function ModelsPage() {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions());
  const rows = models.data ?? [];
  return (
    <>
      <title>Models · Crucible</title>
      <PageHeader
        title="Models"
        subtitle={
          <>
            Hugging Face models registered with <code>crucible models import</code>; their files live in the artifact store by sha256.
          </>
        }
      />
      {models.isPending ? (
        <Loading label="Loading models…" />
      ) : models.isError ? (
        <ErrorNotice title="Could not load models" error={models.error} onRetry={() => models.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No models registered">
          Register a Hugging Face directory with <code>npx crucible models import DIR --name NAME</code>.
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className={tableClass} aria-label="Models">
            <thead>
              <tr>
                <th className={thClass}>Name</th>
                <th className={thClass}>Architecture</th>
                <th className={`${thClass} text-right`}>Parameters</th>
                <th className={thClass}>Dtype</th>
                <th className={`${thClass} text-right`}>Size</th>
                <th className={thClass}>Chat template</th>
                <th className={thClass}>Weights</th>
                <th className={thClass}>Imported</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id} data-testid="model-row">
                  <td className={tdClass}>
                    <Link href={`/models/${encodeURIComponent(m.name)}`} className="whitespace-nowrap font-medium text-accent hover:underline">
                      {m.name}
                    </Link>
                  </td>
                  <td className={tdClass}>{m.architecture}</td>
                  <td className={`${tdClass} text-right tabular-nums`} title={`${m.parameters.toLocaleString('en-US')} parameters`}>
                    {formatParameters(m.parameters)}
                  </td>
                  <td className={`${tdClass} font-mono text-xs`}>{m.dtype}</td>
                  <td className={`${tdClass} whitespace-nowrap text-right tabular-nums`}>{formatBytes(m.bytes)}</td>
                  <td className={`${tdClass} text-slate-600`}>{m.chatTemplate ? 'yes' : 'none'}</td>
                  <td className={`${tdClass} font-mono text-xs text-slate-600`} title={m.weightsSha256}>
                    {shortHash(m.weightsSha256)}
                  </td>
                  <td className={`${tdClass} whitespace-nowrap text-slate-600`} title={formatDateTime(m.createdAt)}>
                    {timeAgo(m.createdAt)} · {m.createdBy}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
