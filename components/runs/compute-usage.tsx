'use client';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { Section } from '@/components/ui/layout-parts';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { ErrorNotice } from '@/components/ui/states';
import { UsageBar } from '@/components/workers/usage-bar';
import { computeRows, formatComputeSeconds } from './compute-format';

/**
 * "Compute": the CPU-seconds (and GPU-seconds where a GPU ran) the run's jobs used so far, per
 * phase, as counted when each job committed (run_compute; docs/resources.md). Polled slowly while
 * the run is live: it moves only when a job finishes.
 */
type Row = ReturnType<typeof computeRows>['rows'][number];
const gpuColumn: DataColumn<Row> = {
  key: 'gpu',
  header: 'GPU-seconds',
  className: 'whitespace-nowrap tabular-nums',
  cell: (r) => formatComputeSeconds(r.gpuSeconds),
};

export function ComputeUsage({ runId, live }: { runId: string; live: boolean }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.resources.runCompute.queryOptions({ runId }), refetchInterval: live ? 15_000 : false });
  const view = q.data ? computeRows(q.data.phases) : null;
  return (
    <Section title="Compute">
      {q.isError ? (
        <ErrorNotice title="Could not load the run's compute" error={q.error} onRetry={() => q.refetch()} />
      ) : !view ? (
        <p className="text-sm text-slate-500">Loading compute…</p>
      ) : (
        <>
          <p className="mb-2 text-sm text-slate-700" data-testid="compute-total">
            {formatComputeSeconds(view.cpuSeconds)} of CPU{view.showGpu ? ` · ${formatComputeSeconds(view.gpuSeconds)} of GPU` : ''} so far
            <span className="text-slate-500"> — counted as each job commits; the worker&apos;s own CPU and its sandboxes&apos;</span>
          </p>
          <DataTable
            label="Compute by phase"
            fit
            rows={view.rows}
            rowKey={(r) => r.phase}
            rowTestId="compute-phase-row"
            columns={[
              { key: 'phase', header: 'Phase', cell: (r) => r.label },
              {
                key: 'cpu',
                header: 'CPU-seconds',
                className: 'whitespace-nowrap tabular-nums',
                cellProps: () => ({ 'data-testid': 'compute-cpu' }),
                cell: (r) => formatComputeSeconds(r.cpuSeconds),
              },
              {
                key: 'share',
                header: 'Share',
                className: 'whitespace-nowrap tabular-nums',
                cell: (r) => (
                  <>
                    <UsageBar value={r.share} max={1} label={`${r.label} share of CPU`} /> {(r.share * 100).toFixed(0)}%
                  </>
                ),
              },
              ...(view.showGpu ? [gpuColumn] : []),
              { key: 'jobs', header: 'Jobs', className: 'tabular-nums', cell: (r) => r.jobs },
            ]}
          />
        </>
      )}
    </Section>
  );
}
