'use client';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { StatusBadge } from '../ui/status-badge';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { Pagination } from '../ui/pagination';
import { controlClass } from '../ui/layout-parts';
import { DataTable } from '../ui/data-table';
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
      ) : (
        <DataTable
          label="Episodes"
          rows={episodes.data.items}
          rowKey={(e) => e.id}
          rowTestId="episode-row"
          rowProps={() => ({ className: 'hover:bg-slate-50' })}
          empty={
            <EmptyState title={status ? `No ${status} episodes` : 'No episodes yet'}>
              {status ? 'Pick another status.' : 'Episodes appear here as the run samples trajectories.'}
            </EmptyState>
          }
          footer={<Pagination page={page} pageSize={pageSize} total={episodes.data.total} onPage={setPage} />}
          columns={[
            {
              key: 'episode',
              header: 'Episode',
              cell: (e) => (
                <Link href={`/episodes/${e.id}`} className="font-mono text-xs text-accent hover:underline">
                  {e.id.slice(0, 8)}
                </Link>
              ),
            },
            { key: 'iteration', header: 'Iter', className: 'tabular-nums', cell: (e) => e.iteration },
            { key: 'sample', header: 'Group / sample', className: 'tabular-nums', cell: (e) => `${e.groupIndex} / ${e.sampleIndex}` },
            { key: 'status', header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
            { key: 'turns', header: 'Turns', className: 'tabular-nums', cell: (e) => e.turnsCount },
            { key: 'reward', header: 'Reward', align: 'right', className: 'tabular-nums', cell: (e) => formatNumber(e.reward ?? null) },
            { key: 'runtime', header: 'Runtime', className: 'text-slate-600', cell: (e) => e.runtime ?? '—' },
            { key: 'envHash', header: 'Env hash', className: 'font-mono text-xs', cell: (e) => shortHash(e.envHash) },
            { key: 'duration', header: 'Duration', className: 'tabular-nums text-slate-600', cell: (e) => durationBetween(e.startedAt, e.finishedAt) },
          ]}
        />
      )}
    </div>
  );
}
