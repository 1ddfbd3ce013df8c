'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { DataTable } from '../ui/data-table';
import { EmptyState, ErrorNotice, Loading } from '../ui/states';
import { LevelBadge } from '../logs/level-badge';
import { fieldSummary, formatOffset } from '../logs/log-filters';

/** The fields a timeline row shows beside its message: what happened, not the ids it is bound to. */
const KEY_FIELDS = ['tool', 'durationMs', 'exitCode', 'tokens', 'status', 'reward', 'testsPassed', 'testsTotal', 'error'] as const;
const keyFields = (f: Record<string, unknown>) => fieldSummary(Object.fromEntries(KEY_FIELDS.filter((k) => k in f).map((k) => [k, f[k]])), KEY_FIELDS.length);

/**
 * An episode's timeline from the log records bound to it: its job, each sampled message, each
 * tool call (name, duration, exit code), sandbox runs, grading, the commit, and the learner step
 * of its iteration; time from the first record. "Why was this slow, why did it fail" without ssh.
 */
export function EpisodeTimeline({ episodeId, live }: { episodeId: string; live: boolean }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.logs.timeline.queryOptions({ episodeId }), refetchInterval: live ? 3_000 : false });
  if (q.isPending) return <Loading label="Loading the timeline…" />;
  if (q.isError) return <ErrorNotice title="Could not load the timeline" error={q.error} onRetry={() => q.refetch()} />;
  const { entries, truncated } = q.data;
  return (
    <div data-testid="episode-timeline">
      <DataTable
        label="Episode timeline"
        fixed
        rows={entries}
        rowKey={(r) => r.id}
        rowTestId="timeline-row"
        rowProps={(r) => ({ 'data-level': r.level, 'data-stage': String(r.fields.stage ?? '') })}
        empty={
          <EmptyState title="No log records for this episode">
            {live ? 'Records appear as its worker ships them (about every second).' : 'Its records may have passed the log retention, or were never shipped.'}
          </EmptyState>
        }
        columns={[
          { key: 'offset', header: 'Time', width: 'w-24', className: 'whitespace-nowrap tabular-nums text-slate-600', cell: (r) => formatOffset(r.offsetMs) },
          { key: 'level', header: 'Level', width: 'w-20', cell: (r) => <LevelBadge level={r.level} /> },
          {
            key: 'stage',
            header: 'Stage',
            width: 'w-24',
            className: 'text-xs text-slate-600',
            cell: (r) => String(r.fields.stage ?? (r.jobId !== null ? 'job' : '')),
          },
          {
            key: 'msg',
            header: 'Message',
            className: 'break-words text-xs',
            cell: (r) => (
              <>
                <span data-testid="timeline-msg">{r.msg}</span>
                {keyFields(r.fields) && <span className="ml-2 font-mono text-slate-500">{keyFields(r.fields)}</span>}
              </>
            ),
          },
          {
            key: 'host',
            header: 'Host',
            width: 'w-32',
            className: 'truncate text-xs text-slate-600',
            cellProps: (r) => ({ title: r.workerId ?? r.process }),
            cell: (r) => r.host,
          },
        ]}
      />
      <p className="mt-2 text-xs text-slate-500">
        {truncated && 'Only the first records are shown. '}
        <Link className="text-accent underline" href={`/logs?episode=${episodeId}`}>
          All of this episode&apos;s records in Logs
        </Link>
      </p>
    </div>
  );
}
