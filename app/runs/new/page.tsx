'use client';
import { Suspense } from 'react';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { RunForm } from '@/components/runs/run-form';
import { PageHeader } from '@/components/ui/layout-parts';
import { ErrorNotice, Loading } from '@/components/ui/states';

/** With ?from=<runId> the form starts from that run's config ("launch similar"). */
function NewRun() {
  const trpc = useTRPC();
  const from = useSearchParams().get('from');
  const source = useQuery({ ...trpc.runs.get.queryOptions({ id: from ?? '' }), enabled: !!from });
  if (!from) return <RunForm />;
  if (source.isPending) return <Loading label="Loading the run to copy…" />;
  if (source.isError) return <ErrorNotice title="Could not load the run to copy" error={source.error} onRetry={() => source.refetch()} />;
  return <RunForm initial={source.data.config} copiedFrom={{ id: source.data.id, name: source.data.name }} />;
}

export default function NewRunPage() {
  const user = useCurrentUser();
  return (
    <>
      <title>Launch run · Crucible</title>
      <PageHeader title="Launch a run" subtitle="Every field starts at a sensible default; change only what you need." />
      {can(user.role, 'operateRuns') ? (
        <Suspense fallback={<Loading />}>
          <NewRun />
        </Suspense>
      ) : (
        <div role="alert" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900">
          Your role ({user.role}) cannot launch runs. Ask an admin for the operator role, or go back to{' '}
          <Link className="underline" href="/runs">
            runs
          </Link>
          .
        </div>
      )}
    </>
  );
}
