'use client';
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { AdminOnly } from '@/components/admin/admin-only';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { Pagination } from '@/components/ui/pagination';
import { formatDateTime, shortHash } from '@/components/display-format';

const pageSize = 50;

function VerifyChain() {
  const trpc = useTRPC();
  // Verification walks the whole chain: run it on demand, not on every visit.
  const verify = useQuery({ ...trpc.audit.verify.queryOptions(), enabled: false, retry: false });
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button variant="primary" onClick={() => verify.refetch()} disabled={verify.isFetching}>
        {verify.isFetching ? 'Verifying…' : 'Verify chain'}
      </Button>
      {verify.isError && <ErrorNotice title="Verification failed to run" error={verify.error} />}
      {verify.data &&
        (verify.data.ok ? (
          <span role="status" className="text-emerald-700" data-testid="audit-verify-result">
            Chain intact: {verify.data.rows} rows verified, head {shortHash(verify.data.headHash, 16)}.
          </span>
        ) : (
          <span role="alert" className="font-medium text-red-700" data-testid="audit-verify-result">
            Chain broken at row {verify.data.brokenAt}: {verify.data.reason}. Someone changed the audit log outside Crucible; investigate before trusting it.
          </span>
        ))}
    </div>
  );
}

function AuditTable() {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const audit = useQuery({ ...trpc.audit.list.queryOptions({ page, pageSize }), placeholderData: keepPreviousData });
  if (audit.isPending) return <Loading label="Loading audit log…" />;
  if (audit.isError) return <ErrorNotice title="Could not load the audit log" error={audit.error} onRetry={() => audit.refetch()} />;
  if (audit.data.items.length === 0) return <EmptyState title="No audit entries yet">Every change made through Crucible is recorded here.</EmptyState>;
  return (
    <div className="overflow-x-auto">
      <table className={tableClass} aria-label="Audit log">
        <thead>
          <tr>
            <th className={thClass}>#</th>
            <th className={thClass}>At</th>
            <th className={thClass}>Actor</th>
            <th className={thClass}>Action</th>
            <th className={thClass}>Target</th>
            <th className={thClass}>Details</th>
            <th className={thClass}>Hash</th>
          </tr>
        </thead>
        <tbody>
          {audit.data.items.map((a) => (
            <tr key={a.seq} data-testid="audit-row">
              <td className={`${tdClass} tabular-nums text-slate-500`}>{a.seq}</td>
              <td className={`${tdClass} whitespace-nowrap text-slate-600`}>{formatDateTime(a.at)}</td>
              <td className={tdClass}>{a.actor}</td>
              <td className={`${tdClass} font-medium`}>{a.action}</td>
              <td className={`${tdClass} text-xs`}>
                {a.targetType}
                {a.targetId && <span className="font-mono text-slate-500"> {a.targetId.length > 12 ? a.targetId.slice(0, 8) : a.targetId}</span>}
              </td>
              <td className={`${tdClass} max-w-md truncate font-mono text-xs text-slate-600`} title={JSON.stringify(a.details, null, 2)}>
                {Object.keys(a.details ?? {}).length ? JSON.stringify(a.details) : '—'}
              </td>
              <td className={`${tdClass} font-mono text-xs text-slate-400`}>{shortHash(a.hash, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pagination page={page} pageSize={pageSize} total={audit.data.total} onPage={setPage} />
    </div>
  );
}

export default function AuditPage() {
  return (
    <>
      <title>Audit log · Crucible</title>
      <PageHeader title="Audit log" subtitle="Append-only, hash-chained record of every change. Verification recomputes every hash." />
      <AdminOnly>
        <Section title="Integrity">
          <VerifyChain />
        </Section>
        <Section title="Entries">
          <AuditTable />
        </Section>
      </AdminOnly>
    </>
  );
}
