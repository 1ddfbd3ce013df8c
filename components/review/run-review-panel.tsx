'use client';
import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatNumber, shortHash } from '@/components/display-format';

type Rel = { key: string; reviewed: number; disputed: number; disputedRate: number; falseNegativeRate: number; falsePositiveRate: number };

const pct = (x: number) => `${formatNumber(x * 100, 1)}%`;

function RelTable({ label, rows, hash }: { label: string; rows: Rel[]; hash?: boolean }) {
  if (!rows.length) return null;
  return (
    <DataTable
      label={label}
      rows={rows}
      rowKey={(r) => r.key}
      columns={[
        {
          key: 'key',
          header: label,
          className: 'font-mono text-xs',
          cellProps: (r) => ({ title: r.key }),
          cell: (r) => (hash ? shortHash(r.key, 20) : r.key),
        },
        { key: 'reviewed', header: 'reviewed', cell: (r) => r.reviewed },
        { key: 'disputed', header: 'disputed', cell: (r) => pct(r.disputedRate) },
        { key: 'falseNegative', header: 'false neg.', cell: (r) => pct(r.falseNegativeRate) },
        { key: 'falsePositive', header: 'false pos.', cell: (r) => pct(r.falsePositiveRate) },
      ]}
    />
  );
}

/**
 * Review coverage of a run (everyone) and its reward reliability (reviewers and admins).
 * Episodes are scored and sampled while the run is `live`, so the figures poll then, and
 * `refreshKey` (the run's status and iteration) fetches them once more when the run moves:
 * the last iteration's scores land with the run's completion, after polling has stopped.
 */
export function RunReviewPanel({ runId, live = false, refreshKey }: { runId: string; live?: boolean; refreshKey?: string }) {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const canReview = can(me.role, 'review');
  const cov = useQuery({ ...trpc.reviews.coverage.queryOptions({ runIds: [runId] }), refetchInterval: live ? 5_000 : false });
  const rel = useQuery({ ...trpc.reviews.reliability.queryOptions({ runId }), enabled: canReview, refetchInterval: live ? 10_000 : false });
  const refetchCov = cov.refetch;
  const refetchRel = rel.refetch;
  useEffect(() => {
    if (!refreshKey) return;
    void refetchCov();
    if (canReview) void refetchRel();
  }, [refreshKey, refetchCov, refetchRel, canReview]);
  const c = cov.data?.[0];
  return (
    <Section title="Reward review">
      <div data-testid="review-coverage" className="mb-2 text-sm">
        {c ? (
          <>
            Reviewed{' '}
            <span className="font-semibold tabular-nums">
              {c.reviewed} / {c.required}
            </span>{' '}
            required ({pct(c.rate)} of {c.scored} scored; {c.sampled} sampled)
            {c.belowTarget && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900">below coverage</span>}
          </>
        ) : cov.isPending ? (
          'Loading coverage…'
        ) : (
          'No coverage figures'
        )}
      </div>
      {canReview && rel.data?.withheld && (
        <p className="text-sm text-slate-600" data-testid="review-reliability-withheld">
          Verdict rates are withheld while this run has blind review items open.
        </p>
      )}
      {canReview && rel.data?.overall && (
        <div className="space-y-3" data-testid="review-reliability">
          <p className="text-sm">
            Disputed {pct(rel.data.overall.disputedRate)} · false negatives {pct(rel.data.overall.falseNegativeRate)} · false positives{' '}
            {pct(rel.data.overall.falsePositiveRate)} of {rel.data.overall.reviewed} reviewed
          </p>
          <RelTable label="environment hash" rows={rel.data.byEnvHash} hash />
          <RelTable label="task" rows={rel.data.byTask} />
        </div>
      )}
    </Section>
  );
}
