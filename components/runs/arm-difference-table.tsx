import { memo, useMemo } from 'react';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { formatNumber } from '@/components/display-format';
import { armDifference, type ArmDifferenceRow } from './arm-difference';
import type { MetricSampleView } from './metric-groups';

/** On a run with a control arm: RL − control mean reward per iteration, with n and a 95% interval. */
export const ArmDifferenceTable = memo(function ArmDifferenceTable({
  rl,
  control,
  n,
}: {
  rl: readonly MetricSampleView[];
  control: readonly MetricSampleView[];
  n: number;
}) {
  const rows = useMemo(() => armDifference(rl, control, n), [rl, control, n]);
  if (rows.length === 0) return null;
  const columns: DataColumn<ArmDifferenceRow>[] = [
    { key: 'step', header: 'Version', cell: (r) => `v${r.step}`, align: 'right' },
    { key: 'rl', header: 'RL', cell: (r) => formatNumber(r.rl), align: 'right' },
    { key: 'control', header: 'Control', cell: (r) => formatNumber(r.control), align: 'right' },
    {
      key: 'diff',
      header: 'RL − control (95%)',
      align: 'right',
      cell: (r) => `${r.diff >= 0 ? '+' : ''}${formatNumber(r.diff)}${r.halfWidth !== null ? ` ± ${formatNumber(r.halfWidth)}` : ''}`,
      className: (r) => (r.halfWidth !== null && Math.abs(r.diff) > r.halfWidth ? 'font-semibold' : 'text-slate-500'),
    },
  ];
  return (
    <details className="mt-3" data-testid="arm-difference">
      <summary className="cursor-pointer text-sm text-slate-700">RL − control mean reward per iteration (n = {n} episodes per arm per iteration)</summary>
      <p className="my-1 text-xs text-slate-500">
        The interval is ±1.96 standard errors from each arm&apos;s reward spread over its n episodes; a difference inside it (grey) is not distinguishable from
        noise at that iteration. The learning test and `npm run bench -- learning` test the whole run.
      </p>
      <DataTable label="RL minus control" columns={columns} rows={rows} rowKey={(r) => r.step} fit />
    </details>
  );
});
