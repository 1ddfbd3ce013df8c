'use client';
import { Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { AdminOnly } from '@/components/admin/admin-only';
import { Button } from '@/components/ui/button';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { AuditTable } from '@/components/audit/audit-table';
import { shortHash } from '@/components/display-format';

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
          {/* the filters come from the URL's query (useSearchParams needs a boundary) */}
          <Suspense fallback={<Loading label="Loading audit log…" />}>
            <AuditTable />
          </Suspense>
        </Section>
      </AdminOnly>
    </>
  );
}
