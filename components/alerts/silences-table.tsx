'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC, type RouterOutputs } from '@/components/trpc';
import { DataTable, type DataColumn } from '@/components/ui/data-table';
import { Button } from '@/components/ui/button';
import { formatDateTime } from '@/components/display-format';
import { errorMessage } from '@/components/api-error';
import { LabelChips } from './alert-labels';

type SilenceRow = RouterOutputs['alerts']['silences'][number];

/** Active silences: what they match, why, who, until when; operators end them early. */
export function SilencesTable({ rows, canOperate }: { rows: readonly SilenceRow[]; canOperate: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const end = useMutation(trpc.alerts.unsilence.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.alerts.pathKey() }) }));
  const columns: DataColumn<SilenceRow>[] = [
    { key: 'matchers', header: 'Matches', cell: (s) => <LabelChips labels={s.matchers} hide={[]} /> },
    { key: 'reason', header: 'Reason', cell: (s) => s.reason },
    { key: 'by', header: 'By', cell: (s) => s.createdBy },
    { key: 'until', header: 'Until', cell: (s) => formatDateTime(s.expiresAt) },
    {
      key: 'actions',
      header: null,
      cell: (s) =>
        canOperate && (
          <Button onClick={() => end.mutate({ id: s.id })} disabled={end.isPending} data-testid="silence-end">
            End now
          </Button>
        ),
    },
  ];
  return (
    <>
      {end.isError && <p className="mb-2 text-sm text-red-700">{errorMessage(end.error)}</p>}
      <DataTable label="Silences" columns={columns} rows={rows} rowKey={(s) => s.id} rowTestId="silence-row" empty="No active silences." />
    </>
  );
}
