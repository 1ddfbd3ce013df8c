'use client';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { EmptyState, ErrorNotice, Loading, NoAccess } from '@/components/ui/states';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, formatNumber } from '@/components/display-format';

/** Reviews per hour between a reviewer's first and last verdict (at least one hour's window). */
function perHour(reviewed: number, first: Date | string | null, last: Date | string | null) {
  if (!first || !last || reviewed === 0) return '—';
  const hours = Math.max(1, (new Date(last).getTime() - new Date(first).getTime()) / 3_600_000);
  return formatNumber(reviewed / hours, 1);
}

/** Agreement between reviewers on double-reviewed items (Cohen's kappa) and each reviewer's throughput. */
export default function ReviewersPage() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const allowed = can(me.role, 'review');
  const agreement = useQuery({ ...trpc.reviews.agreement.queryOptions({}), enabled: allowed });
  const reviewers = useQuery({ ...trpc.reviews.reviewers.queryOptions(), enabled: allowed });
  if (!allowed) return <NoAccess page="the reviewers page" role={me.role} needs="reviewer or admin" />;
  return (
    <>
      <title>Reviewers · Crucible</title>
      <PageHeader title="Reviewers" subtitle="Agreement on double-reviewed items and throughput" />
      <Section title="Agreement (Cohen's kappa)">
        {agreement.isPending ? (
          <Loading />
        ) : agreement.isError ? (
          <ErrorNotice error={agreement.error} onRetry={() => agreement.refetch()} />
        ) : (
          <>
            <p className="mb-2 text-sm" data-testid="kappa-overall">
              Overall κ <span className="font-semibold tabular-nums">{formatNumber(agreement.data.overall.kappa)}</span> over {agreement.data.overall.items}{' '}
              double-reviewed items
            </p>
            <DataTable
              label="Agreement by pair"
              rows={agreement.data.pairs}
              rowKey={(p) => `${p.a}-${p.b}`}
              rowTestId="kappa-pair"
              empty={<EmptyState title="No double-reviewed items yet" />}
              columns={[
                { key: 'a', header: 'reviewer', cell: (p) => p.a },
                { key: 'b', header: 'reviewer', cell: (p) => p.b },
                { key: 'items', header: 'items', cell: (p) => p.items },
                { key: 'agreement', header: 'raw agreement', cell: (p) => `${formatNumber(p.agreement * 100, 1)}%` },
                { key: 'kappa', header: 'κ', className: 'tabular-nums', cell: (p) => formatNumber(p.kappa) },
              ]}
            />
          </>
        )}
      </Section>
      <Section title="Throughput">
        {reviewers.isPending ? (
          <Loading />
        ) : reviewers.isError ? (
          <ErrorNotice error={reviewers.error} onRetry={() => reviewers.refetch()} />
        ) : (
          <DataTable
            label="Reviewer throughput"
            rows={reviewers.data}
            rowKey={(r) => r.username}
            rowTestId="reviewer-row"
            empty={<EmptyState title="No reviews yet" />}
            columns={[
              { key: 'reviewer', header: 'reviewer', cell: (r) => r.username },
              { key: 'reviewed', header: 'reviewed', cell: (r) => r.reviewed },
              { key: 'last24h', header: 'last 24 h', cell: (r) => r.last24h },
              { key: 'perHour', header: 'per hour', cell: (r) => perHour(r.reviewed, r.first_at, r.last_at) },
              { key: 'double', header: 'double-reviewed', cell: (r) => r.double_reviewed },
              { key: 'last', header: 'last verdict', cell: (r) => formatDateTime(r.last_at) },
            ]}
          />
        )}
      </Section>
    </>
  );
}
