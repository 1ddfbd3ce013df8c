'use client';
import { Suspense } from 'react';
import { PageHeader, Section } from '@/components/ui/layout-parts';
import { Loading } from '@/components/ui/states';
import { LogsTable } from '@/components/logs/logs-table';

export default function LogsPage() {
  return (
    <>
      <title>Logs · Crucible</title>
      <PageHeader
        title="Logs"
        subtitle="Structured records from every worker on every host, newest first. Filter by run, episode, worker, host, level or text; `crucible logs` does the same from a terminal."
      />
      <Section title="Records">
        {/* the filters come from the URL's query (useSearchParams needs a boundary) */}
        <Suspense fallback={<Loading label="Loading logs…" />}>
          <LogsTable />
        </Suspense>
      </Section>
    </>
  );
}
