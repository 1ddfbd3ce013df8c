'use client';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { ErrorNotice } from '@/components/ui/states';
import { formatNumber, shortHash } from '@/components/display-format';

// Re-runs take seconds; poll until the job worker has finished both.
const POLL_MS = 2_000;

type Rerun = {
  label?: string;
  status?: string;
  reward?: number | null;
  components?: Record<string, unknown> | null;
  envHash?: string | null;
  runtime?: string | null;
  tests?: { index: number; passed: boolean; detail: string }[];
  note?: string;
};

function RerunColumn({ title, rerun }: { title: string; rerun: Rerun | null }) {
  if (!rerun) return <div className="rounded border border-slate-200 p-2 text-slate-400">{title}: no result</div>;
  const tests = rerun.tests ?? [];
  return (
    <div className="min-w-0 rounded border border-slate-200 p-2" data-testid={`rerun-${title}`}>
      <h3 className="mb-1 text-sm font-semibold">{title}</h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
        <dt className="text-slate-500">status</dt>
        <dd data-testid="rerun-status">{rerun.status ?? '—'}</dd>
        <dt className="text-slate-500">reward</dt>
        <dd className="tabular-nums" data-testid="rerun-reward">
          {formatNumber(rerun.reward ?? null)}
        </dd>
        <dt className="text-slate-500">tests passed</dt>
        <dd className="tabular-nums">{tests.length ? `${tests.filter((t) => t.passed).length} / ${tests.length}` : '—'}</dd>
        <dt className="text-slate-500">env hash</dt>
        <dd className="truncate font-mono" title={rerun.envHash ?? undefined}>
          {shortHash(rerun.envHash ?? null, 20)}
        </dd>
        <dt className="text-slate-500">runtime</dt>
        <dd>{rerun.runtime ?? '—'}</dd>
      </dl>
      {rerun.components && (
        <table className="mt-1 w-full text-xs" aria-label={`${title} components`}>
          <tbody>
            {Object.entries(rerun.components).map(([k, v]) => (
              <tr key={k}>
                <td className="pr-2 text-slate-500">{k}</td>
                <td className="tabular-nums">{typeof v === 'number' ? formatNumber(v) : JSON.stringify(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tests.some((t) => !t.passed) && (
        <ul className="mt-1 space-y-0.5 text-xs text-red-700">
          {tests
            .filter((t) => !t.passed)
            .slice(0, 5)
            .map((t) => (
              <li key={t.index}>
                test {t.index}: {t.detail}
              </li>
            ))}
        </ul>
      )}
      {rerun.note && <p className="mt-1 text-xs text-slate-500">{rerun.note}</p>}
    </div>
  );
}

/** A disputed verdict's diagnosis: the final code re-run on the baseline and on the scored environment. */
export function DiagnosisPanel({ reviewId }: { reviewId: string }) {
  const trpc = useTRPC();
  const d = useQuery({
    ...trpc.reviews.diagnosis.queryOptions({ id: reviewId }),
    refetchInterval: (q) => (q.state.data && (q.state.data.status === 'done' || q.state.data.status === 'failed') ? false : POLL_MS),
  });
  const data = d.data;
  return (
    <section className="mb-4 rounded border border-amber-300 bg-amber-50 p-3" aria-label="Diagnosis" data-testid="diagnosis">
      <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-amber-800">
        Diagnosis{' '}
        <span data-testid="diagnosis-status" className="ml-1 rounded bg-white px-1.5 py-0.5 normal-case">
          {data?.status ?? (d.isPending ? 'loading' : 'not opened')}
        </span>
      </h2>
      {d.isError && <ErrorNotice title="Could not load the diagnosis" error={d.error} />}
      {data && data.status !== 'done' && data.status !== 'failed' && (
        <p className="text-sm text-amber-900">Re-running the final code on the baseline and the scored environment… (a job worker picks this up)</p>
      )}
      {data?.status === 'failed' && (
        <p role="alert" className="text-sm text-red-700">
          Diagnosis failed: {data.error}
        </p>
      )}
      {data?.status === 'done' && (
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
          <RerunColumn title="baseline" rerun={data.baseline as Rerun | null} />
          <RerunColumn title="scored" rerun={data.scored as Rerun | null} />
        </div>
      )}
    </section>
  );
}
