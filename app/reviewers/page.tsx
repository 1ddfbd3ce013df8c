'use client';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { EmptyState, ErrorNotice, Loading, NoAccess } from '@/components/ui/states';
import { PageHeader, Section, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
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
            {agreement.data.pairs.length === 0 ? (
              <EmptyState title="No double-reviewed items yet" />
            ) : (
              <table className={tableClass} aria-label="Agreement by pair">
                <thead>
                  <tr>
                    <th className={thClass}>reviewer</th>
                    <th className={thClass}>reviewer</th>
                    <th className={thClass}>items</th>
                    <th className={thClass}>raw agreement</th>
                    <th className={thClass}>κ</th>
                  </tr>
                </thead>
                <tbody>
                  {agreement.data.pairs.map((p) => (
                    <tr key={`${p.a}-${p.b}`} data-testid="kappa-pair">
                      <td className={tdClass}>{p.a}</td>
                      <td className={tdClass}>{p.b}</td>
                      <td className={tdClass}>{p.items}</td>
                      <td className={tdClass}>{formatNumber(p.agreement * 100, 1)}%</td>
                      <td className={`${tdClass} tabular-nums`}>{formatNumber(p.kappa)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Section>
      <Section title="Throughput">
        {reviewers.isPending ? (
          <Loading />
        ) : reviewers.isError ? (
          <ErrorNotice error={reviewers.error} onRetry={() => reviewers.refetch()} />
        ) : reviewers.data.length === 0 ? (
          <EmptyState title="No reviews yet" />
        ) : (
          <table className={tableClass} aria-label="Reviewer throughput">
            <thead>
              <tr>
                <th className={thClass}>reviewer</th>
                <th className={thClass}>reviewed</th>
                <th className={thClass}>last 24 h</th>
                <th className={thClass}>per hour</th>
                <th className={thClass}>double-reviewed</th>
                <th className={thClass}>last verdict</th>
              </tr>
            </thead>
            <tbody>
              {reviewers.data.map((r) => (
                <tr key={r.username} data-testid="reviewer-row">
                  <td className={tdClass}>{r.username}</td>
                  <td className={tdClass}>{r.reviewed}</td>
                  <td className={tdClass}>{r.last24h}</td>
                  <td className={tdClass}>{perHour(r.reviewed, r.first_at, r.last_at)}</td>
                  <td className={tdClass}>{r.double_reviewed}</td>
                  <td className={tdClass}>{formatDateTime(r.last_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
