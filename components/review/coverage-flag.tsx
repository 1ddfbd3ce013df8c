'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';

/**
 * Runs whose reviewed share is below what their review rate requires (never below 5%).
 * Given run ids, only those are checked; otherwise every run. `linkTo="review"` links each
 * run to its own review queue (on /review, where a link to the run page would undo blind review).
 */
export function CoverageFlag({ runIds, names, linkTo = 'run' }: { runIds?: string[]; names?: Record<string, string>; linkTo?: 'run' | 'review' }) {
  const trpc = useTRPC();
  const cov = useQuery({ ...trpc.reviews.coverage.queryOptions({ runIds }), enabled: runIds === undefined || runIds.length > 0 });
  const low = (cov.data ?? []).filter((c) => c.belowTarget);
  if (!low.length) return null;
  return (
    <div role="status" className="mb-3 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="coverage-flag">
      <span className="font-medium">{low.length === 1 ? '1 run is' : `${low.length} runs are`} below review coverage</span> (at least 5% of scored rewards must
      be reviewed):{' '}
      {low.slice(0, 10).map((c, i) => (
        <span key={c.runId}>
          {i > 0 && ', '}
          <Link className="underline" href={linkTo === 'review' ? `/review?run=${c.runId}` : `/runs/${c.runId}`}>
            {names?.[c.runId] ?? c.runId.slice(0, 8)}
          </Link>{' '}
          {c.reviewed}/{c.required}
        </span>
      ))}
      {low.length > 10 && ` and ${low.length - 10} more`}
    </div>
  );
}
