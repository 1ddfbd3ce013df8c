import Link from 'next/link';
import type { RouterOutputs } from '@/components/trpc';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { StatusBadge } from '@/components/ui/status-badge';
import { formatComputeSeconds } from '@/components/runs/compute-format';
import { COMPUTE_PHASE_LABELS, COMPUTE_PHASES } from '@/core/compute';

type Row = RouterOutputs['resources']['overview']['compute'][number];

/** /resources: each run's CPU-seconds (and GPU-seconds where any) per phase so far, the most recently active first. */
export function RunComputeTable({ rows }: { rows: Row[] }) {
  const showGpu = rows.some((r) => r.gpuSeconds > 0);
  const columns: DataColumn<Row>[] = [
    {
      key: 'run',
      header: 'Run',
      cell: (r) => (
        <Link className="text-accent hover:underline" href={`/runs/${r.runId}`}>
          {r.name}
        </Link>
      ),
    },
    { key: 'status', header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
    ...COMPUTE_PHASES.map((phase): DataColumn<Row> => ({
      key: phase,
      header: COMPUTE_PHASE_LABELS[phase].replace(/ \(.*\)$/, ''),
      className: 'whitespace-nowrap tabular-nums',
      cellProps: () => ({ 'data-phase': phase }),
      cell: (r) => {
        const p = r.phases.find((x) => x.phase === phase)!;
        return p.cpuSeconds > 0 ? formatComputeSeconds(p.cpuSeconds) : <span className="text-slate-400">—</span>;
      },
    })),
    { key: 'total', header: 'CPU total', className: 'whitespace-nowrap font-medium tabular-nums', cell: (r) => formatComputeSeconds(r.cpuSeconds) },
    ...(showGpu
      ? [{ key: 'gpu', header: 'GPU total', className: 'whitespace-nowrap tabular-nums', cell: (r: Row) => formatComputeSeconds(r.gpuSeconds) }]
      : []),
  ];
  return (
    <DataTable
      label="Compute per run"
      rows={rows}
      rowKey={(r) => r.runId}
      rowTestId="run-compute-row"
      empty="No run has finished a job yet."
      columns={columns}
    />
  );
}
