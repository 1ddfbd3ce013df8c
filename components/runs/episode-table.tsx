'use client';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { StatusBadge } from '../ui/status-badge';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { Pagination } from '../ui/pagination';
import { controlClass, tableClass, tdClass, thClass } from '../ui/layout-parts';
import { durationBetween, formatNumber, shortHash } from '../display-format';

const episodeStatuses = ['pending', 'running', 'scored', 'failed', 'sandbox_error', 'env_mismatch', 'preempted', 'cancelled', 'masked'] as const;
type EpisodeStatus = (typeof episodeStatuses)[number];
const pageSize = 20;

/** `refreshKey`: changes when the run moves (iteration, status), so the table refetches once even after polling stopped. */
export function EpisodeTable({ runId, live, refreshKey }: { runId: string; live: boolean; refreshKey?: string }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<EpisodeStatus | ''>('');
  const episodes = useQuery({
    ...trpc.episodes.list.queryOptions({ runId, page, pageSize, status: status || undefined }),
    placeholderData: keepPreviousData,
    refetchInterval: live ? 5_000 : false,
  });
  const refetch = episodes.refetch;
  useEffect(() => {
    if (refreshKey) void refetch();
  }, [refreshKey, refetch]);
  return (
    <div>
      <div className="mb-2 flex items-center gap-2">
        <select
          className={`${controlClass} w-44`}
          aria-label="Filter episodes by status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as EpisodeStatus | '');
            setPage(1);
          }}
        >
          <option value="">All statuses</option>
          {episodeStatuses.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {episodes.isPending ? (
        <Loading label="Loading episodes…" />
      ) : episodes.isError ? (
        <ErrorNotice title="Could not load episodes" error={episodes.error} onRetry={() => episodes.refetch()} />
      ) : episodes.data.items.length === 0 ? (
        <EmptyState title={status ? `No ${status} episodes` : 'No episodes yet'}>
          {status ? 'Pick another status.' : 'Episodes appear here as the run samples trajectories.'}
        </EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className={tableClass} aria-label="Episodes">
            <thead>
              <tr>
                <th className={thClass}>Episode</th>
                <th className={thClass}>Iter</th>
                <th className={thClass}>Group / sample</th>
                <th className={thClass}>Status</th>
                <th className={thClass}>Turns</th>
                <th className={`${thClass} text-right`}>Reward</th>
                <th className={thClass}>Runtime</th>
                <th className={thClass}>Env hash</th>
                <th className={thClass}>Duration</th>
              </tr>
            </thead>
            <tbody>
              {episodes.data.items.map((e) => (
                <tr key={e.id} className="hover:bg-slate-50" data-testid="episode-row">
                  <td className={tdClass}>
                    <Link href={`/episodes/${e.id}`} className="font-mono text-xs text-accent hover:underline">
                      {e.id.slice(0, 8)}
                    </Link>
                  </td>
                  <td className={`${tdClass} tabular-nums`}>{e.iteration}</td>
                  <td className={`${tdClass} tabular-nums`}>
                    {e.groupIndex} / {e.sampleIndex}
                  </td>
                  <td className={tdClass}>
                    <StatusBadge status={e.status} />
                  </td>
                  <td className={`${tdClass} tabular-nums`}>{e.turnsCount}</td>
                  <td className={`${tdClass} text-right tabular-nums`}>{formatNumber(e.reward ?? null)}</td>
                  <td className={`${tdClass} text-slate-600`}>{e.runtime ?? '—'}</td>
                  <td className={`${tdClass} font-mono text-xs`}>{shortHash(e.envHash)}</td>
                  <td className={`${tdClass} tabular-nums text-slate-600`}>{durationBetween(e.startedAt, e.finishedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination page={page} pageSize={pageSize} total={episodes.data.total} onPage={setPage} />
        </div>
      )}
    </div>
  );
}
