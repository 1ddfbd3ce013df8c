'use client';
import { Suspense, useEffect, useState } from 'react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { AlertsTable, type AlertRow } from '@/components/alerts/alerts-table';
import { SilenceForm } from '@/components/alerts/silence-form';
import { SilencesTable } from '@/components/alerts/silences-table';
import { DeliveriesTable } from '@/components/alerts/deliveries-table';

const STATES = [
  ['active', 'Firing and pending'],
  ['resolved', 'Resolved'],
] as const;

function AlertsPageBody() {
  const trpc = useTRPC();
  const user = useCurrentUser();
  const canOperate = can(user.role, 'operateRuns');
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const state = params.get('state') === 'resolved' ? 'resolved' : 'active';
  const run = params.get('run') ?? undefined;
  const setParam = (k: string, v: string | null) => {
    const next = new URLSearchParams(params);
    if (v === null) next.delete(k);
    else next.set(k, v);
    router.replace(`${pathname}${next.size ? `?${next}` : ''}`);
  };
  const [silencing, setSilencing] = useState<AlertRow | null>(null);
  const list = useQuery({ ...trpc.alerts.list.queryOptions({ state, runId: run }), refetchInterval: 15_000, placeholderData: (p) => p });
  // the nav's count polls every 30 s: each fresh list refreshes it, so the two never disagree on this page
  const queryClient = useQueryClient();
  const countsKey = trpc.alerts.counts.queryKey();
  useEffect(() => {
    if (list.dataUpdatedAt) void queryClient.invalidateQueries({ queryKey: countsKey });
    // on each new list only: `countsKey` is a new (equal) array every render
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.dataUpdatedAt]);
  const silences = useQuery({ ...trpc.alerts.silences.queryOptions({}), refetchInterval: 30_000 });
  const deliveries = useQuery({ ...trpc.alerts.deliveries.queryOptions({}), enabled: canOperate, refetchInterval: 30_000 });
  return (
    <>
      <title>Alerts · Crucible</title>
      <PageHeader
        title="Alerts"
        subtitle="Rules evaluated over runs, workers, nodes, queues and sandboxes (docs/monitoring.md). A firing alert is notified once per group of alerts of one rule and run or node; silenced and inhibited ones stay listed but are not sent."
        actions={
          <span className="flex gap-1" role="group" aria-label="Which alerts">
            {STATES.map(([v, label]) => (
              <button
                key={v}
                type="button"
                aria-pressed={state === v}
                onClick={() => setParam('state', v === 'active' ? null : v)}
                className={`rounded border px-2 py-1 text-sm ${state === v ? 'border-slate-700 bg-slate-700 text-white' : 'border-slate-300 bg-white text-slate-700 hover:bg-slate-100'}`}
              >
                {label}
              </button>
            ))}
          </span>
        }
      />
      {run && (
        <p className="mb-3 text-sm text-slate-600">
          Showing one run&apos;s alerts.{' '}
          <button type="button" className="text-accent underline" onClick={() => setParam('run', null)}>
            Show all
          </button>
        </p>
      )}
      {silencing && <SilenceForm from={silencing.labels} onDone={() => setSilencing(null)} />}
      {list.isPending ? (
        <Loading label="Loading alerts…" />
      ) : list.isError ? (
        <ErrorNotice title="Could not load alerts" error={list.error} onRetry={() => list.refetch()} />
      ) : (
        <AlertsTable rows={list.data} canOperate={canOperate} onSilence={setSilencing} />
      )}
      <Section title="Silences">{silences.data ? <SilencesTable rows={silences.data} canOperate={canOperate} /> : <Loading />}</Section>
      {canOperate && <Section title="Delivery log">{deliveries.data ? <DeliveriesTable rows={deliveries.data} /> : <Loading />}</Section>}
    </>
  );
}

export default function AlertsPage() {
  // useSearchParams needs a Suspense boundary for the static build
  return (
    <Suspense fallback={<Loading />}>
      <AlertsPageBody />
    </Suspense>
  );
}
